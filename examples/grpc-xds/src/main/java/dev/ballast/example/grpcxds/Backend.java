package dev.ballast.example.grpcxds;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;

/**
 * gRPC backends, one server per {@code name=port} argument, on 127.0.0.1: each answers
 * {@link Who#NAME} with its name. One process may serve several (a backend of one service
 * and others of another), until it is stopped.
 */
public final class Backend {

	private Backend() {
	}

	public static void main(String[] args) throws Exception {
		List<Server> servers = new ArrayList<>();
		for (String arg : args) {
			String name = arg.substring(0, arg.indexOf('='));
			int port = Integer.parseInt(arg.substring(arg.indexOf('=') + 1));
			servers.add(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port),
					InsecureServerCredentials.create())
				.addService(ServerServiceDefinition.builder("ballast.example.Who")
					.addMethod(Who.NAME, ServerCalls.asyncUnaryCall((request, response) -> {
						response.onNext(name);
						response.onCompleted();
					}))
					.build())
				.build()
				.start());
			System.out.println("backend " + name + " listening on 127.0.0.1:" + port);
		}
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			servers.forEach(Server::shutdown);
			for (Server server : servers) {
				try {
					server.awaitTermination(5, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}));
		for (Server server : servers) {
			server.awaitTermination();
		}
	}

}

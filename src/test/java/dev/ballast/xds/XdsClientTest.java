package dev.ballast.xds;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import io.grpc.CallOptions;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolverRegistry;
import io.grpc.Server;
import io.grpc.StatusRuntimeException;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.xds.XdsNameResolverProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.offset;
import static org.awaitility.Awaitility.await;

/**
 * grpc-java's own xDS client (io.grpc:grpc-xds, the real name resolver and balancers)
 * dialing {@code xds:///<service>} against the ADS server, with three real gRPC servers
 * behind it: the split of its picks is the split of the weights, and a weight change
 * moves it. The end-to-end script runs the same as separate processes
 * ({@code examples/grpc-xds}).
 */
@RegistryTest
class XdsClientTest {

	/** A unary method answering the name of the backend that served it. */
	static final MethodDescriptor<String, String> WHO = MethodDescriptor.<String, String>newBuilder()
		.setType(MethodDescriptor.MethodType.UNARY)
		.setFullMethodName("ballast.test.Who/Name")
		.setRequestMarshaller(Utf8.INSTANCE)
		.setResponseMarshaller(Utf8.INSTANCE)
		.build();

	@LocalServerPort
	int port;

	@Autowired
	AdsServer server;

	final List<Server> backends = new ArrayList<>();

	ManagedChannel channel;

	@AfterEach
	void tearDown() throws InterruptedException {
		if (channel != null) {
			channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
		}
		for (Server backend : backends) {
			backend.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
		}
	}

	@Test
	void grpcJavasPicksSplitAsTheWeightsAndFollowAChange() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("grpc");
		Map<String, Integer> weights = Map.of("a", 300, "b", 200, "c", 100);
		for (Map.Entry<String, Integer> backend : new TreeMap<>(weights).entrySet()) {
			int backendPort = backend(backend.getKey());
			api.put("/v1/services/%s/instances/%s".formatted(service, backend.getKey()),
					Registration.at("127.0.0.1", backendPort).weight(backend.getValue()).leaseTtlSeconds(300));
		}
		channel = channel(service);
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> call(channel) != null);

		Map<String, Integer> picks = picks(channel, 3000);
		assertThat(percent(picks, "a")).isCloseTo(50.0, offset(3.5));
		assertThat(percent(picks, "b")).isCloseTo(33.3, offset(3.5));
		assertThat(percent(picks, "c")).isCloseTo(16.7, offset(3.5));

		api.patch("/v1/services/%s/instances/c".formatted(service), "{\"weight\":0}");
		await().atMost(Duration.ofSeconds(10)).until(() -> !picks(channel, 200).containsKey("c"));
		Map<String, Integer> after = picks(channel, 2000);
		assertThat(after).doesNotContainKey("c");
		assertThat(percent(after, "a")).isCloseTo(60.0, offset(4.0));
	}

	@Test
	void grpcJavaWithoutATokenGetsNothingAndSaysWhy() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("grpc-none");
		api.put("/v1/services/%s/instances/a".formatted(service),
				Registration.at("127.0.0.1", backend("a")).leaseTtlSeconds(300));
		channel = channel(service, Map.of("id", "xds-client-anonymous"));
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class, () -> call(channel));
			assertThat(refused).as("no call is served").isNotNull();
			assertThat(refused.getStatus().getDescription()).contains("UNAUTHENTICATED");
		});
	}

	private ManagedChannel channel(String service) {
		return channel(service,
				Map.of("id", "xds-client-test", "metadata", Map.of(StreamOpening.TOKEN_KEY, Admin.TOKEN)));
	}

	private ManagedChannel channel(String service, Map<String, ?> node) {
		Map<String, ?> bootstrap = Map.of("xds_servers", List.of(Map.of("server_uri", "127.0.0.1:" + server.port(),
				"channel_creds", List.of(Map.of("type", "insecure")), "server_features", List.of("xds_v3"))), "node",
				node);
		String scheme = "xds-" + service;
		// A scheme of its own, so that this bootstrap (its token, its node) is this
		// channel's alone.
		NameResolverRegistry.getDefaultRegistry().register(XdsNameResolverProvider.createForTest(scheme, bootstrap));
		return NettyChannelBuilder.forTarget(scheme + ":///" + service, InsecureChannelCredentials.create()).build();
	}

	private int backend(String name) throws IOException {
		Server backend = NettyServerBuilder
			.forAddress(new InetSocketAddress("127.0.0.1", 0), InsecureServerCredentials.create())
			.addService(ServerServiceDefinition.builder("ballast.test.Who")
				.addMethod(WHO, ServerCalls.asyncUnaryCall((request, response) -> {
					response.onNext(name);
					response.onCompleted();
				}))
				.build())
			.build()
			.start();
		backends.add(backend);
		return backend.getPort();
	}

	private static String call(ManagedChannel channel) {
		return ClientCalls.blockingUnaryCall(channel, WHO, CallOptions.DEFAULT.withDeadlineAfter(2, TimeUnit.SECONDS),
				"?");
	}

	private static Map<String, Integer> picks(ManagedChannel channel, int calls) {
		Map<String, Integer> picks = new TreeMap<>();
		for (int i = 0; i < calls; i++) {
			picks.merge(call(channel), 1, Integer::sum);
		}
		return picks;
	}

	private static double percent(Map<String, Integer> picks, String name) {
		int total = picks.values().stream().mapToInt(Integer::intValue).sum();
		return 100.0 * picks.getOrDefault(name, 0) / total;
	}

	/** Strings as UTF-8 bytes: a method needs no protobuf to be a gRPC method. */
	enum Utf8 implements MethodDescriptor.Marshaller<String> {

		INSTANCE;

		@Override
		public InputStream stream(String value) {
			return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
		}

		@Override
		public String parse(InputStream stream) {
			try {
				return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}

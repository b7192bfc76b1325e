package dev.ballast.xds;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.ballast.security.StreamCaller;
import dev.ballast.security.TokensInForce;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/**
 * {@code StreamAggregatedResources}, state of the world (the variant grpc-java speaks);
 * the incremental variant is left unimplemented. Holds the open streams, so that those
 * whose token is deleted or expires end at once ({@code UNAUTHENTICATED}), and so that
 * stopping the node ends every one.
 */
final class AdsService extends AggregatedDiscoveryServiceGrpc.AggregatedDiscoveryServiceImplBase {

	/** The call's {@code authorization} metadata, read by {@link #authorization()}. */
	private static final Context.Key<String> AUTHORIZATION = Context.key("ballast-authorization");

	private static final Metadata.Key<String> AUTHORIZATION_HEADER = Metadata.Key.of("authorization",
			Metadata.ASCII_STRING_MARSHALLER);

	private final StreamServices services;

	private final Set<AdsStream> open = ConcurrentHashMap.newKeySet();

	AdsService(StreamServices services) {
		this.services = services;
		services.meters().streams(open);
	}

	@Override
	public StreamObserver<DiscoveryRequest> streamAggregatedResources(StreamObserver<DiscoveryResponse> responses) {
		ServerCallStreamObserver<DiscoveryResponse> out = (ServerCallStreamObserver<DiscoveryResponse>) responses;
		AdsStream stream = new AdsStream(out, AUTHORIZATION.get(), services, open::remove);
		open.add(stream);
		out.setOnCancelHandler(() -> stream.close(null));
		return stream;
	}

	/** Puts a call's {@code authorization} metadata where its stream finds it. */
	static ServerInterceptor authorization() {
		return new ServerInterceptor() {

			@Override
			public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
					ServerCallHandler<Q, R> next) {
				Context context = Context.current().withValue(AUTHORIZATION, headers.get(AUTHORIZATION_HEADER));
				return Contexts.interceptCall(context, call, headers, next);
			}

		};
	}

	/** Ends the streams of tokens no longer in force. */
	void retain(TokensInForce tokens) {
		for (AdsStream stream : open) {
			StreamCaller caller = stream.caller();
			if (caller != null && !tokens.ids().contains(caller.id())) {
				stream.close(Status.UNAUTHENTICATED.withDescription("the stream's token was deleted or has expired"));
			}
		}
	}

	/** Ends every stream: the node stops. Clients keep their configuration and go on. */
	void closeAll() {
		for (AdsStream stream : open) {
			stream.close(Status.UNAVAILABLE.withDescription("the registry node is stopping; reconnect"));
		}
	}

}

package dev.ballast.xds;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.rpc.Status;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;

/**
 * A bare ADS client for the protocol tests: it sends exactly the requests a test writes
 * and keeps every response, so that versions, nonces, ACKs and NACKs can be checked one
 * by one. (grpc-java's own xDS client is tested in {@link XdsClientTest}.)
 */
final class AdsClient implements AutoCloseable {

	private final ManagedChannel channel;

	private final StreamObserver<DiscoveryRequest> requests;

	private final BlockingQueue<DiscoveryResponse> responses = new LinkedBlockingQueue<>();

	private final CompletableFuture<io.grpc.Status> ended = new CompletableFuture<>();

	private final Node node;

	private boolean first = true;

	private AdsClient(int port, Node node, String authorization) {
		this.node = node;
		this.channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
		var stub = AggregatedDiscoveryServiceGrpc.newStub(channel);
		if (authorization != null) {
			Metadata headers = new Metadata();
			headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), authorization);
			stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
		}
		this.requests = stub.streamAggregatedResources(new StreamObserver<>() {

			@Override
			public void onNext(DiscoveryResponse response) {
				responses.add(response);
			}

			@Override
			public void onError(Throwable cause) {
				ended.complete(cause instanceof StatusRuntimeException status ? status.getStatus()
						: io.grpc.Status.fromThrowable(cause));
			}

			@Override
			public void onCompleted() {
				ended.complete(io.grpc.Status.OK);
			}

		});
	}

	/**
	 * A stream of node {@code nodeId} in {@code zone} (or none), its token in its node
	 * metadata.
	 */
	static AdsClient open(int port, String nodeId, String zone, String token) {
		Node.Builder node = Node.newBuilder().setId(nodeId);
		if (zone != null) {
			node.setLocality(Locality.newBuilder().setZone(zone));
		}
		if (token != null) {
			node.setMetadata(Struct.newBuilder()
				.putFields(StreamOpening.TOKEN_KEY, Value.newBuilder().setStringValue(token).build()));
		}
		return new AdsClient(port, node.build(), null);
	}

	/** A stream whose token travels in the call's authorization metadata. */
	static AdsClient withHeader(int port, String nodeId, String authorization) {
		return new AdsClient(port, Node.newBuilder().setId(nodeId).build(), authorization);
	}

	/** Asks for {@code names} of {@code type}, answering {@code nonce} (empty: none). */
	void ask(String type, String version, String nonce, String... names) {
		send(DiscoveryRequest.newBuilder()
			.setTypeUrl(type)
			.setVersionInfo(version)
			.setResponseNonce(nonce)
			.addAllResourceNames(List.of(names)));
	}

	/** ACKs {@code response}, asking for {@code names}. */
	void ack(DiscoveryResponse response, String... names) {
		ask(response.getTypeUrl(), response.getVersionInfo(), response.getNonce(), names);
	}

	/** NACKs {@code response}, keeping {@code lastGood}, asking for {@code names}. */
	void nack(DiscoveryResponse response, String lastGood, String detail, String... names) {
		send(DiscoveryRequest.newBuilder()
			.setTypeUrl(response.getTypeUrl())
			.setVersionInfo(lastGood)
			.setResponseNonce(response.getNonce())
			.addAllResourceNames(List.of(names))
			.setErrorDetail(Status.newBuilder().setCode(3).setMessage(detail)));
	}

	private synchronized void send(DiscoveryRequest.Builder request) {
		if (first) {
			request.setNode(node);
			first = false;
		}
		requests.onNext(request.build());
	}

	/** The next response, within {@code within}; fails when none comes. */
	DiscoveryResponse next(Duration within) throws InterruptedException {
		DiscoveryResponse response = responses.poll(within.toMillis(), TimeUnit.MILLISECONDS);
		if (response == null) {
			throw new AssertionError("no response within " + within);
		}
		return response;
	}

	/** The next response if one comes within {@code within}, else null. */
	DiscoveryResponse poll(Duration within) throws InterruptedException {
		return responses.poll(within.toMillis(), TimeUnit.MILLISECONDS);
	}

	/** The status the server ended the stream with, within {@code within}. */
	io.grpc.Status ended(Duration within) throws Exception {
		return ended.get(within.toMillis(), TimeUnit.MILLISECONDS);
	}

	@Override
	public void close() {
		channel.shutdownNow();
		try {
			channel.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

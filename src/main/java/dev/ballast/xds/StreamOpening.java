package dev.ballast.xds;

import java.util.Optional;

import com.google.protobuf.Value;
import dev.ballast.registry.ZoneView;
import dev.ballast.security.StreamCaller;
import dev.ballast.security.StreamCallers;
import dev.ballast.watch.Subscribers;
import dev.ballast.web.OverloadedException;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.grpc.Status;

/**
 * What a stream's first request settles: who calls (the token of the call's
 * {@code authorization} metadata, as Envoy and every client that sends call credentials
 * present it, or else of the node's {@code metadata.ballast_token}, which a grpc-java
 * client sends from its bootstrap file alone), which zone's view it gets (its
 * {@code node.locality.zone}), the subscriber it is (its node id), and its place within
 * the caps: the node's watchers and its token's streams (shared with SSE streams), and
 * its node id's streams.
 *
 * @param authorization the call's {@code authorization} metadata, or {@code null}
 * @param services the caps and the tokens
 */
record StreamOpening(String authorization, StreamServices services) {

	/** The key of {@code node.metadata} that carries the token. */
	static final String TOKEN_KEY = "ballast_token";

	/**
	 * A stream opened.
	 *
	 * @param caller its token
	 * @param nodeId the client's node id (possibly empty)
	 * @param subscriber the subscriber it is recorded as: its node id when that is a
	 * subscriber name, else {@code null} (not recorded)
	 * @param zone the zone whose view it gets, or {@code null} for the flat view
	 * @param release gives its places back
	 */
	record Opened(StreamCaller caller, String nodeId, String subscriber, String zone, Runnable release) {
	}

	/**
	 * @throws StreamRefusal {@code UNAUTHENTICATED} without a valid token,
	 * {@code INVALID_ARGUMENT} for a zone no instance could have,
	 * {@code RESOURCE_EXHAUSTED} past a cap
	 */
	Opened open(DiscoveryRequest first) {
		Node node = first.getNode();
		StreamCaller caller = caller(node);
		String zone = node.getLocality().getZone();
		if (!zone.isEmpty() && !ZoneView.named(zone)) {
			throw new StreamRefusal(Status.INVALID_ARGUMENT
				.withDescription("node.locality.zone must be a zone name (letters, digits, '.', '_', '-', at most 63); "
						+ "got \"%s\"".formatted(zone.length() > 63 ? zone.substring(0, 63) + "…" : zone)));
		}
		String nodeId = node.getId();
		if (!services.nodes().tryTake(nodeId)) {
			throw new StreamRefusal(Status.RESOURCE_EXHAUSTED
				.withDescription(("node id \"%s\" holds its maximum of %d ADS streams on this node "
						+ "(ballast.xds.max-streams-per-node-id)")
					.formatted(nodeId, services.nodes().max())));
		}
		Runnable place;
		try {
			place = services.places().take(caller.id());
		}
		catch (OverloadedException ex) {
			services.nodes().release(nodeId);
			throw new StreamRefusal(Status.RESOURCE_EXHAUSTED.withDescription(ex.getMessage()));
		}
		return new Opened(caller, nodeId, Subscribers.named(nodeId) ? nodeId : null, zone.isEmpty() ? null : zone,
				() -> {
					place.run();
					services.nodes().release(nodeId);
				});
	}

	private StreamCaller caller(Node node) {
		Optional<String> secret;
		if (authorization != null) {
			secret = StreamCallers.bearer(authorization);
			if (secret.isEmpty()) {
				throw unauthenticated("the authorization metadata must be \"Bearer <token>\"");
			}
		}
		else {
			Value token = node.getMetadata().getFieldsMap().get(TOKEN_KEY);
			if (token == null || token.getKindCase() != Value.KindCase.STRING_VALUE) {
				throw unauthenticated(("this stream needs a token: the bootstrap's node.metadata.%s (a string), or "
						+ "the call's authorization metadata \"Bearer <token>\"")
					.formatted(TOKEN_KEY));
			}
			secret = Optional.of(token.getStringValue().strip());
		}
		return secret.flatMap(services.callers()::authenticate)
			.orElseThrow(() -> unauthenticated("the token is unknown, deleted or expired"));
	}

	private static StreamRefusal unauthenticated(String detail) {
		return new StreamRefusal(Status.UNAUTHENTICATED.withDescription(detail));
	}

}

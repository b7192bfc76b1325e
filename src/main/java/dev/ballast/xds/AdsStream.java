package dev.ballast.xds;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.ballast.registry.ServiceName;
import dev.ballast.security.StreamCaller;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ADS stream (state of the world): its caller, the names it subscribed to per type,
 * and what it was sent. A request is read on gRPC's thread for the call; a change of a
 * subscribed service marks its endpoints due from any thread, and {@link #drain} sends
 * what is due, one response at a time while the client takes them, so that a slow client
 * is sent only the latest state of each resource. Everything but the due marks is guarded
 * by the stream's lock.
 *
 * <p>
 * Versions: a response of endpoints is versioned by the services and revisions it carries
 * ({@code demo:42}, {@code a:7,b:3}); Listener, Route and Cluster resources depend on
 * their names alone and are version {@code 1}. An ACK (the nonce of a response, no error)
 * of endpoints records that the node applied those revisions: it confirms drains as an
 * SSE subscriber's acknowledgement does. A NACK is logged, counted and recorded, and
 * nothing is sent again: the client keeps its last good version. A request carrying an
 * older nonce answers that older response; the names it asks for are read only with the
 * latest nonce, as the protocol wants.
 */
final class AdsStream implements StreamObserver<DiscoveryRequest> {

	private static final Logger log = LoggerFactory.getLogger(AdsStream.class);

	private final ServerCallStreamObserver<DiscoveryResponse> out;

	private final StreamServices services;

	private final StreamOpening opening;

	private final Map<ResourceType, Subscription> types = new EnumMap<>(ResourceType.class);

	private final Map<String, ServiceEndpoints> endpoints = new HashMap<>();

	/**
	 * Each subscribed service's endpoints last sent on this stream: the same assignment
	 * (revision and resource alike) is not sent again (a service's first state can be
	 * marked due both by the subscription and by its feed's loading it, seen as a
	 * duplicate response in CI). Not the revision alone: after a failover that lost a
	 * tail, a revision can come again with other content, which must be sent.
	 */
	private final Map<String, ServiceEndpoints.Assignment> sentAssignments = new HashMap<>();

	/** Set with {@link #opened}. */
	private NodeSubscriber subscriber;

	/** Services whose state changed, to be marked due by the next drain. */
	private final Set<String> changed = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean drainScheduled = new AtomicBoolean();

	private final ScheduledFuture<?> firstRequestTimer;

	/** Told once, when the stream ends, however it ends. */
	private final Consumer<AdsStream> ended;

	private StreamOpening.Opened opened;

	private long nonces;

	private boolean closed;

	AdsStream(ServerCallStreamObserver<DiscoveryResponse> out, String authorization, StreamServices services,
			Consumer<AdsStream> ended) {
		this.out = out;
		this.services = services;
		this.ended = ended;
		this.opening = new StreamOpening(authorization, services);
		out.setOnReadyHandler(this::scheduleDrain);
		long timeout = services.settings().firstRequestTimeout().toMillis();
		this.firstRequestTimer = services.timer()
			.schedule(
					() -> close(Status.DEADLINE_EXCEEDED
						.withDescription("no DiscoveryRequest within %d ms of opening the stream".formatted(timeout))),
					timeout, TimeUnit.MILLISECONDS);
	}

	@Override
	public void onNext(DiscoveryRequest request) {
		try {
			boolean due;
			synchronized (this) {
				if (closed) {
					return;
				}
				if (opened == null) {
					firstRequestTimer.cancel(false);
					opened = opening.open(request);
					subscriber = new NodeSubscriber(services.subscribers(), opened.subscriber(), opened.zone());
				}
				due = read(request);
			}
			// An ACK that changes no subscription (most requests) has nothing to send.
			if (due) {
				scheduleDrain();
			}
		}
		catch (StreamRefusal refusal) {
			close(refusal.status());
		}
		catch (RuntimeException ex) {
			// A bug must end this stream, not leave it half read.
			log.warn("ADS stream failed on a request", ex);
			close(Status.INTERNAL.withDescription("the registry could not read the request"));
		}
	}

	@Override
	public void onError(Throwable cause) {
		close(null);
	}

	@Override
	public void onCompleted() {
		synchronized (this) {
			if (!closed) {
				out.onCompleted();
			}
		}
		close(null);
	}

	/** The token the stream was opened with, once it was. */
	synchronized StreamCaller caller() {
		return opened == null ? null : opened.caller();
	}

	/** The endpoints of {@code service} changed: due on the next drain. Any thread. */
	void endpointsChanged(String service) {
		changed.add(service);
		scheduleDrain();
	}

	/** Ends the stream with {@code status} (none: the client ended it). */
	void close(Status status) {
		synchronized (this) {
			if (closed) {
				return;
			}
			closed = true;
			firstRequestTimer.cancel(false);
			if (status != null) {
				try {
					out.onError(status.asRuntimeException());
				}
				catch (IllegalStateException ex) {
					// The call ended meanwhile: nothing is left to tell.
				}
			}
			endpoints.values().forEach(feed -> services.endpoints().unsubscribe(feed, this));
			endpoints.clear();
			sentAssignments.clear();
			if (subscriber != null) {
				subscriber.gone();
			}
			if (opened != null) {
				opened.release().run();
			}
		}
		ended.accept(this);
	}

	/**
	 * Reads a request; returns whether it subscribed to anything, so that a send is due.
	 */
	private boolean read(DiscoveryRequest request) {
		ResourceType type = ResourceType.of(request.getTypeUrl()).orElse(null);
		if (type == null) {
			log.debug("ADS stream of {} asked for type {}, which Ballast does not serve", opened.nodeId(),
					request.getTypeUrl());
			return false;
		}
		Subscription subscription = types.computeIfAbsent(type, t -> new Subscription());
		String nonce = request.getResponseNonce();
		if (!nonce.isEmpty()) {
			Subscription.Sent sent = subscription.answered(nonce);
			if (sent != null) {
				answered(type, sent, request);
			}
			if (!subscription.current(nonce)) {
				return false;
			}
		}
		Set<String> asked = new LinkedHashSet<>(request.getResourceNamesList());
		if (asked.size() > services.settings().maxResourcesPerStream()) {
			throw new StreamRefusal(Status.RESOURCE_EXHAUSTED.withDescription(
					"a stream may subscribe to at most %d resources of a type (ballast.xds.max-resources-per-stream); got %d"
						.formatted(services.settings().maxResourcesPerStream(), asked.size())));
		}
		if (nonce.isEmpty() || !asked.equals(subscription.names())) {
			subscribe(type, subscription, asked, nonce.isEmpty());
			return true;
		}
		return false;
	}

	/**
	 * The client asks for {@code asked}: each new name that is a service it may read is
	 * subscribed to (a service it may not read ends the stream), names that are no
	 * service are left unanswered (they do not exist), and what the client now lacks is
	 * due.
	 */
	private void subscribe(ResourceType type, Subscription subscription, Set<String> asked, boolean fromScratch) {
		Set<String> added = new LinkedHashSet<>(asked);
		if (!fromScratch) {
			added.removeAll(subscription.names());
		}
		for (String name : added) {
			if (ServiceName.valid(name) && !opened.caller().reads(name)) {
				throw new StreamRefusal(Status.PERMISSION_DENIED
					.withDescription("%s may not read service %s".formatted(opened.caller().describe(), name)));
			}
		}
		Set<String> removed = new LinkedHashSet<>(subscription.names());
		removed.removeAll(asked);
		subscription.names(asked);
		if (type == ResourceType.ENDPOINTS) {
			removed.forEach(this::unsubscribeEndpoints);
			added.stream().filter(ServiceName::valid).forEach(this::subscribeEndpoints);
		}
		if (type.fullState()) {
			subscription.dueWhole();
		}
		else {
			added.stream().filter(ServiceName::valid).forEach(subscription::due);
		}
	}

	private void subscribeEndpoints(String service) {
		if (endpoints.containsKey(service)) {
			return;
		}
		ServiceName name = ServiceName.of(service);
		endpoints.put(service, services.endpoints().subscribe(name, this));
		subscriber.reads(service);
	}

	private void unsubscribeEndpoints(String service) {
		ServiceEndpoints feed = endpoints.remove(service);
		// Subscribed again later, its state is sent again: the client dropped it.
		sentAssignments.remove(service);
		if (feed != null) {
			services.endpoints().unsubscribe(feed, this);
		}
		subscriber.stopsReading(service);
	}

	/** An ACK or a NACK of {@code sent}. */
	private void answered(ResourceType type, Subscription.Sent sent, DiscoveryRequest request) {
		if (!request.hasErrorDetail()) {
			subscriber.acked(sent.revisions());
			return;
		}
		String detail = request.getErrorDetail().getMessage();
		services.meters().nacked(type);
		log.warn("xDS client {} refused {} version {} (NACK), keeping its last good version: {}", opened.nodeId(),
				type.url(), sent.version(), detail.length() > 500 ? detail.substring(0, 500) + "..." : detail);
		subscriber.nacked(sent.revisions(), detail);
	}

	private void scheduleDrain() {
		if (drainScheduled.compareAndSet(false, true)) {
			services.work().execute(this::drain);
		}
	}

	/** Sends what is due, one response at a time, while the client takes them. */
	private void drain() {
		drainScheduled.set(false);
		synchronized (this) {
			if (closed || opened == null) {
				return;
			}
			Subscription subscribedEndpoints = types.get(ResourceType.ENDPOINTS);
			for (String service : List.copyOf(changed)) {
				changed.remove(service);
				if (subscribedEndpoints != null && endpoints.containsKey(service)) {
					subscribedEndpoints.due(service);
				}
			}
			for (ResourceType type : ResourceType.values()) {
				Subscription subscription = types.get(type);
				if (subscription == null || !subscription.anythingDue()) {
					continue;
				}
				if (!out.isReady()) {
					// The client takes nothing now: what is due stays due, and the next
					// send is the latest state (onReady drains again).
					return;
				}
				respond(type, subscription);
			}
		}
	}

	private void respond(ResourceType type, Subscription subscription) {
		boolean whole = subscription.wholeDue();
		Set<String> due = subscription.takeDue();
		Map<String, ServiceEndpoints.Assignment> sending = new HashMap<>();
		ResponseContent content = ResponseContent.of(type, whole ? subscription.names() : due, name -> {
			ServiceEndpoints feed = endpoints.get(name);
			ServiceEndpoints.Assignment assignment = feed == null ? null : feed.assignment(opened.zone());
			if (assignment == null || assignment.equals(sentAssignments.get(name))) {
				return null;
			}
			sending.put(name, assignment);
			return assignment;
		});
		if (content.resources().isEmpty() && !type.fullState()) {
			return;
		}
		String nonce = Long.toString(++nonces);
		out.onNext(DiscoveryResponse.newBuilder()
			.setTypeUrl(type.url())
			.setVersionInfo(content.version())
			.setNonce(nonce)
			.addAllResources(content.resources())
			.build());
		subscription.sent(nonce, new Subscription.Sent(content.version(), content.revisions()));
		sentAssignments.putAll(sending);
		services.meters().responded(type);
		subscriber.delivered(content.revisions());
	}

}

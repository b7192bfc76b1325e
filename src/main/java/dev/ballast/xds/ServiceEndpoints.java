package dev.ballast.xds;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;

import com.google.protobuf.Any;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ZoneView;

/**
 * One service's endpoints as every ADS stream subscribed to them is sent them: the state
 * this node applied last, and its ClusterLoadAssignment per zone view, rendered once for
 * all the streams that ask for that view (in a zone of its instances under a locality
 * policy; any other asker gets the flat view, which is what {@link ZoneView} gives it, so
 * that zones made up by clients leave nothing behind).
 */
final class ServiceEndpoints {

	private final String service;

	private final Executor fanOut;

	private final Set<AdsStream> streams = ConcurrentHashMap.newKeySet();

	private volatile Rendered rendered;

	private Runnable unfollow = () -> {
	};

	ServiceEndpoints(String service, Executor fanOut) {
		this.service = service;
		this.fanOut = fanOut;
	}

	String service() {
		return service;
	}

	/**
	 * A state this node applied; on the delivering thread, which this only hands over:
	 * the streams are told on {@link #fanOut}.
	 */
	void next(InstanceList state) {
		rendered = new Rendered(state);
		fanOut.execute(() -> streams.forEach(stream -> stream.endpointsChanged(service)));
	}

	/**
	 * The assignment at the latest state for a client in {@code zone} ({@code null}: no
	 * zone); {@code null} while no state has arrived.
	 */
	Assignment assignment(String zone) {
		Rendered now = rendered;
		return now == null ? null : now.of(zone);
	}

	Set<AdsStream> streams() {
		return streams;
	}

	void following(Runnable unfollow) {
		this.unfollow = unfollow;
	}

	void unfollow() {
		unfollow.run();
	}

	/**
	 * A ClusterLoadAssignment as sent.
	 *
	 * @param revision the service revision it is the endpoints of
	 * @param resource it, packed once for every stream
	 */
	record Assignment(long revision, Any resource) {
	}

	/** One state, and its assignments per zone view asked for. */
	private static final class Rendered {

		private final InstanceList state;

		private final Map<String, Assignment> views = new ConcurrentHashMap<>();

		/** The zones of its instances, when a locality policy gives them views. */
		private final Set<String> zones;

		/** The key of the flat view among the zones'. */
		private static final String FLAT = "";

		Rendered(InstanceList state) {
			this.state = state;
			this.zones = state.locality() == null ? Set.of()
					: state.instances()
						.stream()
						.map(InstanceView::zone)
						.filter(Objects::nonNull)
						.collect(Collectors.toUnmodifiableSet());
		}

		Assignment of(String zone) {
			String view = zone != null && zones.contains(zone) ? zone : FLAT;
			return views.computeIfAbsent(view, z -> new Assignment(state.revision(),
					Any.pack(Resources.assignment(ZoneView.of(state, Objects.equals(z, FLAT) ? null : z)))));
		}

	}

}

package dev.ballast.xds;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * How a service's weights travel in a ClusterLoadAssignment so that grpc-java and Envoy
 * both route exactly the share Ballast means.
 *
 * <p>
 * grpc-java ignores an endpoint's {@code load_balancing_weight} under round_robin (gRFC
 * A27, A48, A58): what a cluster with {@code lb_policy: ROUND_ROBIN} becomes there,
 * {@code wrr_locality} over {@code round_robin}, picks a locality in proportion to its
 * locality weight, then the locality's endpoints in turn. An endpoint alone in a locality
 * of weight {@code L} among localities of total weight {@code T} thus gets {@code L/T},
 * and {@code n} endpoints of one locality get {@code L/(T n)} each. So the endpoints are
 * grouped by (zone, weight): a group of {@code n} endpoints of weight {@code w} is one
 * locality of weight {@code w × n}, and each of its endpoints gets
 * {@code (w n)/(Σ w) × 1/n = w / Σ w}, its share of the service's weight, exactly. Envoy
 * reads the same shape either way: with {@code locality_weighted_lb_config} it picks the
 * locality as grpc-java does and then among equal endpoint weights, without it it weighs
 * the endpoints by their own {@code load_balancing_weight}, set to {@code w}.
 *
 * <p>
 * An endpoint at weight 0 is left out (grpc-java would read 0 as 1, Envoy refuses it), so
 * that no weight of 0 is ever sent. The sum of locality weights is Σ w, at most 10,000
 * per endpoint: within Envoy's bound of 2^32 − 1 up to 429,496 routable endpoints.
 */
final class LocalityGroups {

	private LocalityGroups() {
	}

	/**
	 * Endpoints of one zone at one weight, sent as one locality.
	 *
	 * @param zone their zone, or {@code null} for endpoints without one
	 * @param weight the weight of each, at least 1
	 * @param endpoints them, in the order given
	 */
	record Group<T>(String zone, int weight, List<T> endpoints) {

		/** The locality's weight: the sum of its endpoints' weights. */
		long localityWeight() {
			return (long) weight * endpoints.size();
		}

	}

	/**
	 * The localities of {@code endpoints}, sorted by zone (endpoints without one first),
	 * then by weight from the largest; an endpoint whose weight is 0 is in none.
	 * @param zone an endpoint's zone, or {@code null}
	 * @param weight an endpoint's weight, 0 to 10,000
	 */
	static <T> List<Group<T>> of(List<T> endpoints, Function<T, String> zone, ToIntFunction<T> weight) {
		Map<Key, List<T>> grouped = new LinkedHashMap<>();
		for (T endpoint : endpoints) {
			int w = weight.applyAsInt(endpoint);
			if (w < 0 || w > 10_000) {
				throw new IllegalArgumentException("a weight is 0 to 10000; got " + w);
			}
			if (w > 0) {
				grouped.computeIfAbsent(new Key(zone.apply(endpoint), w), k -> new ArrayList<>()).add(endpoint);
			}
		}
		List<Group<T>> groups = new ArrayList<>(grouped.size());
		grouped.forEach((key, members) -> groups.add(new Group<>(key.zone(), key.weight(), List.copyOf(members))));
		groups.sort(Comparator.comparing((Group<T> g) -> Objects.requireNonNullElse(g.zone(), ""))
			.thenComparing(g -> g.zone() != null)
			.thenComparing(Group::weight, Comparator.reverseOrder()));
		return groups;
	}

	private record Key(String zone, int weight) {
	}

}

package dev.ballast.weight;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The weights of a traffic shift's members at a step: the {@code to} group gets exactly
 * the step's percentage of the weight that serves, to one weight unit.
 * <p>
 * The weight that serves is the sum of the current weights of the members that can take
 * traffic ({@link Member#serving}); a step shares it again without changing it (so a
 * shift moves capacity, it neither makes nor takes any): {@code floor(S * p / 100)} to
 * the {@code to} group and the rest to {@code from}, each group's part split among its
 * serving members in proportion to their weights before the release ({@link Apportion}).
 * A member that cannot take traffic (in maintenance, draining, ejected) keeps the weight
 * it has, so it neither counts in the shares nor carries more capacity out of rotation;
 * when it serves again its weight joins the shared sum. At 100% every {@code from}
 * member, serving or not, gets 0: the old version is retired (unless no {@code to} member
 * serves: a group that serves nothing takes nothing, and {@code from} keeps it all).
 * <p>
 * No weight passes {@link Weight#MAX}: where a part would, the shared sum is lowered
 * until every part fits, so the shares stay exact.
 */
public final class ShiftWeights {

	private ShiftWeights() {
	}

	/**
	 * A member of a shift.
	 *
	 * @param id its id
	 * @param to whether it is in the group that takes traffic
	 * @param original its weight before the release: its share's basis
	 * @param current its weight now
	 * @param serving whether it can take traffic now
	 */
	public record Member(String id, boolean to, int original, int current, boolean serving) {

		public Member {
			Objects.requireNonNull(id, "id");
			if (original < 0 || current < 0) {
				throw new IllegalArgumentException(
						"weights must not be negative; got original %d, current %d".formatted(original, current));
			}
		}

	}

	/**
	 * @param members the members, in a stable order
	 * @param percent the {@code to} group's share, 0 to 100
	 * @return each member's weight at that share, by id, in the members' order
	 */
	public static Map<String, Weight> at(List<Member> members, int percent) {
		if (percent < 0 || percent > 100) {
			throw new IllegalArgumentException("percent must be from 0 to 100; got " + percent);
		}
		List<Member> to = members.stream().filter(m -> m.to() && m.serving()).toList();
		List<Member> from = members.stream().filter(m -> !m.to() && m.serving()).toList();
		long shared = members.stream().filter(Member::serving).mapToLong(Member::current).sum();
		// A group with no serving member can carry nothing: the other gets everything.
		int share = to.isEmpty() ? 0 : from.isEmpty() ? 100 : percent;
		shared = Math.min(shared, fitting(to, share));
		shared = Math.min(shared, fitting(from, 100 - share));
		long toPart = Math.multiplyExact(shared, share) / 100;
		Map<String, Weight> weights = new LinkedHashMap<>();
		members.forEach(member -> weights.put(member.id(), Weight.of(Math.min(member.current(), Weight.MAX))));
		split(weights, to, toPart);
		split(weights, from, shared - toPart);
		if (percent == 100 && !to.isEmpty()) {
			members.stream().filter(member -> !member.to()).forEach(member -> weights.put(member.id(), Weight.ZERO));
		}
		return weights;
	}

	private static void split(Map<String, Weight> weights, List<Member> group, long total) {
		List<Weight> parts = Apportion.of(total, group.stream().map(Member::original).toList());
		for (int i = 0; i < group.size(); i++) {
			weights.put(group.get(i).id(), parts.get(i));
		}
	}

	/**
	 * The largest shared sum whose {@code percent} the group can take without a member
	 * passing the maximum weight: its part may be at most {@code MAX * sum / largest} of
	 * its originals, rounded down (an apportioned part is its exact share rounded up only
	 * when that share has a fraction, so it stays within the maximum).
	 */
	private static long fitting(List<Member> group, int percent) {
		if (percent == 0 || group.isEmpty()) {
			return Long.MAX_VALUE;
		}
		long sum = group.stream().mapToLong(Member::original).sum();
		long largest = group.stream().mapToLong(Member::original).max().orElse(0);
		if (largest == 0) {
			// Shared equally (Apportion): each member's part is the part over the count.
			return Math.multiplyExact((long) Weight.MAX * group.size(), 100) / percent;
		}
		long part = Math.multiplyExact((long) Weight.MAX, sum) / largest;
		return Math.multiplyExact(part, 100) / percent;
	}

}

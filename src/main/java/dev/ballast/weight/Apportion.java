package dev.ballast.weight;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Splits a total weight between members in proportion to their own weights, in whole
 * units (largest remainder: each gets the floor of its exact share, and the units left
 * over go to the largest fractions, ties to the earlier member). The parts sum exactly to
 * the total unless a part would pass the maximum weight, where it stops.
 */
public final class Apportion {

	private Apportion() {
	}

	/**
	 * @param total the weight to split, at least 0
	 * @param weights each member's own weight (any integral type), at least 0
	 * @return each member's part, in the same order
	 */
	public static List<Weight> of(long total, List<? extends Number> weights) {
		if (total < 0) {
			throw new IllegalArgumentException("total must not be negative; got " + total);
		}
		long sum = weights.stream().mapToLong(Number::longValue).sum();
		List<Weight> parts = new ArrayList<>(weights.size());
		if (weights.isEmpty()) {
			return parts;
		}
		// Members with no weight of their own share equally when no member has any.
		List<Long> basis = weights.stream().map(w -> sum == 0 ? 1L : w.longValue()).toList();
		long basisSum = sum == 0 ? weights.size() : sum;
		long[] floor = new long[weights.size()];
		long[] remainder = new long[weights.size()];
		long given = 0;
		for (int i = 0; i < weights.size(); i++) {
			long exact = Math.multiplyExact(total, basis.get(i));
			floor[i] = exact / basisSum;
			remainder[i] = exact % basisSum;
			given += floor[i];
		}
		List<Integer> byRemainder = IntStream.range(0, weights.size())
			.boxed()
			.sorted(Comparator.comparingLong((Integer i) -> -remainder[i]).thenComparingInt(i -> i))
			.toList();
		for (int k = 0; k < total - given; k++) {
			floor[byRemainder.get(k % byRemainder.size())]++;
		}
		for (long part : floor) {
			parts.add(Weight.of((int) Math.min(Weight.MAX, part)));
		}
		return parts;
	}

}

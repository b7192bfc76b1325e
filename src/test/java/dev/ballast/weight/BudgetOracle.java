package dev.ballast.weight;

/**
 * The budget as defined, written again apart from {@link MaxUnroutable} so that the
 * property tests of the guard ({@link GuardSequencesTest}) and of the instance state
 * machine ({@code InstanceStateMachineTest}) judge it by one oracle: a percent of the
 * base, or (for a percent above 0) one instance when it is the only one out and takes no
 * more than an average instance carries (the instances' capacities over their number,
 * rounded up); a count N: N instances out, and no more than the N largest carry.
 */
public final class BudgetOracle {

	private BudgetOracle() {
	}

	/**
	 * @param figures the scope's base, its unroutable capacity, how many instances are
	 * out, what the N largest carry, the sum of the instances' capacities and how many
	 * carry any
	 */
	public static boolean within(MaxUnroutable limit, long[] figures) {
		long base = figures[0];
		long unroutable = figures[1];
		long out = figures[2];
		long largest = figures[3];
		if (limit.percent()) {
			long carrying = figures[5];
			// unroutable <= ceil(sum / carrying), in integers
			boolean average = carrying > 0 && unroutable * carrying <= figures[4] + carrying - 1;
			return unroutable * 100 <= base * limit.value() || (limit.value() > 0 && out <= 1 && average);
		}
		return out <= limit.value() && unroutable <= largest;
	}

}

package dev.ballast.registry;

/**
 * Aggregates over one service's instances.
 *
 * @param instances registered instances
 * @param routable instances with an effective weight above 0
 * @param passing instances whose lease is current
 * @param critical instances whose lease expired
 * @param nominalWeight sum of nominal weights ({@link dev.ballast.weight.NominalWeight})
 * @param totalEffectiveWeight sum of effective weights
 * @param ejected instances lease expiry made unroutable
 * @param held expired instances the ejection cap keeps routable
 * @param ejectedWeight sum of the nominal weights of ejected instances
 * @param unroutableWeight the nominal weight that does not serve, as the guard counts it:
 * each instance's nominal weight less what it serves ({@link Instance#serving()})
 * @param guardBase the service scope's base in the guard: its nominal weight, or the
 * capacity it had within the window when that was higher
 * ({@link dev.ballast.weight.UnroutableBudget})
 */
public record ServiceCounts(int instances, int routable, int passing, int critical, long nominalWeight,
		long totalEffectiveWeight, int ejected, int held, long ejectedWeight, long unroutableWeight, long guardBase) {

	/** What the guard counts as unroutable in the service scope. */
	public long guardUnroutable() {
		return guardBase - (nominalWeight - unroutableWeight);
	}

}

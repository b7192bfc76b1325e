package dev.ballast.weight;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The guard's budget, written like a PodDisruptionBudget's {@code maxUnavailable}: a
 * count of instances ({@code "1"}) or a percent of a scope's capacity ({@code "25%"}). A
 * percent also admits one instance at a time while nothing else in the scope is out (see
 * {@link UnroutableBudget}), the way a PodDisruptionBudget rounds a percentage up to a
 * whole pod, so that a service of one to three instances, or a zone of one, drains one
 * instance at a time without force; but only an instance that carries no more than an
 * average instance's share of the scope's capacity ({@link #averageShare}), as that floor
 * was meant for services of like instances: one that carries most of the capacity needs a
 * raised budget or force.
 *
 * @param value the count (0 to {@value #MAX_COUNT}) or the percent (0 to 100)
 * @param percent whether {@code value} is a percent
 */
public record MaxUnroutable(int value, boolean percent) {

	/** The largest count accepted. */
	public static final int MAX_COUNT = 10_000;

	/** What a valid budget looks like, for refusals. */
	public static final String EXPECTED = "a count of instances as a JSON integer such as 1 (0 to " + MAX_COUNT
			+ "), or a percent as a string such as \"25%\" (0% to 100%)";

	/**
	 * The default: today's 25% for large services, one instance at a time for small ones.
	 */
	public static final MaxUnroutable DEFAULT = new MaxUnroutable(25, true);

	private static final Pattern TEXT = Pattern.compile("(0|[1-9][0-9]{0,4})(%?)");

	public MaxUnroutable {
		if (value < 0 || value > (percent ? 100 : MAX_COUNT)) {
			throw new IllegalArgumentException(
					"maxUnroutable must be " + EXPECTED + "; got " + value + (percent ? "%" : ""));
		}
	}

	public static MaxUnroutable percentOf(int percent) {
		return new MaxUnroutable(percent, true);
	}

	public static MaxUnroutable count(int count) {
		return new MaxUnroutable(count, false);
	}

	/**
	 * Reads the canonical text ({@code "1"}, {@code "25%"}); empty for anything else. A
	 * count as text is what earlier versions took, and is still read.
	 */
	public static Optional<MaxUnroutable> parse(String text) {
		Matcher matcher = TEXT.matcher(text);
		if (!matcher.matches()) {
			return Optional.empty();
		}
		int value = Integer.parseInt(matcher.group(1));
		boolean percent = !matcher.group(2).isEmpty();
		if (value > (percent ? 100 : MAX_COUNT)) {
			return Optional.empty();
		}
		return Optional.of(new MaxUnroutable(value, percent));
	}

	/**
	 * Whether a scope may stand at {@code unroutable} of its {@code base} capacity with
	 * {@code out} instances held out, {@code largest} being its members' capacities,
	 * largest first.
	 */
	boolean admits(long base, long unroutable, int out, List<Long> largest) {
		if (percent) {
			return unroutable * 100 <= base * value || (value > 0 && out <= 1 && unroutable <= averageShare(largest));
		}
		return withinCount(value, unroutable, out, largest);
	}

	/**
	 * An average instance's share of a scope: the sum of its instances' capacities
	 * divided by the number of those that carry any, rounded up to a whole weight unit
	 * (so that like instances, and one instance alone, always fit). Counted over the
	 * instances themselves, not the scope's base: capacity that left the scope is no
	 * instance whose turn it is.
	 * @param capacities the capacities of its instances
	 */
	public static long averageShare(List<Long> capacities) {
		long carrying = capacities.stream().filter(capacity -> capacity > 0).count();
		long sum = capacities.stream().mapToLong(Long::longValue).sum();
		return carrying == 0 ? 0 : Math.ceilDiv(sum, carrying);
	}

	/**
	 * At most {@code count} instances out, and no more capacity unroutable than the
	 * {@code count} largest instances carry (so that lowering many weights a little
	 * cannot add up to more than the instances the count allows).
	 */
	private static boolean withinCount(int count, long unroutable, int out, List<Long> largest) {
		long allowed = largest.stream().limit(count).mapToLong(Long::longValue).sum();
		return out <= count && unroutable <= allowed;
	}

	/** The canonical text: {@code "1"} or {@code "25%"}. */
	@Override
	public String toString() {
		return percent ? value + "%" : Integer.toString(value);
	}

}

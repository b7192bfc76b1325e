package dev.ballast.dns;

/**
 * SRV weights that HAProxy reads as exactly the share Ballast means.
 *
 * <p>
 * HAProxy (2.x, {@code resolvers.c}) turns an SRV weight {@code w} into its server weight
 * {@code (w + 255) / 256}: raw weights 300/200/100 would become 2/1/1. A multiple of 256
 * is read exactly, so the SRV weight is {@code 256 × h}, where {@code h} is the
 * instance's effective weight scaled to the service's largest. {@code 256 × 256} does not
 * fit in the record's 16 bits, so the largest maps to {@code h = 255} (SRV 65280), not to
 * HAProxy's maximum of 256; an RFC 2782 reader, which picks in proportion to the raw SRV
 * weights, then reads the same proportions as HAProxy.
 *
 * <p>
 * {@code h = round-half-up(255 × effective / largest)}, raised to 1 for a positive
 * effective weight (never 0, which HAProxy would read as "no new traffic"). So each
 * instance's weight relative to the largest is within 1/510 of Ballast's, or it is raised
 * to 1/255 when Ballast's is below 1/510. Shares follow: with {@code n} instances, an
 * instance whose share of the effective weights is {@code s} gets a share of HAProxy's
 * weights within {@code (1 + n·s) / 510} of {@code s} when none is raised, and within
 * {@code (1 + n·s) / 255} in any case. An effective weight of 0 maps to 0.
 */
final class SrvWeights {

	/** HAProxy weight of the service's largest effective weight. */
	static final int SCALE = 255;

	/** How much of an SRV weight one unit of HAProxy weight is. */
	static final int HAPROXY_UNIT = 256;

	private SrvWeights() {
	}

	/**
	 * @param effective an instance's effective weight, from 0 to {@code largest}
	 * @param largest the largest effective weight of the service's routable instances
	 * @return the HAProxy weight, 0 to 255: 0 only for effective weight 0
	 */
	static int haproxyWeight(int effective, int largest) {
		if (effective < 0 || effective > largest) {
			throw new IllegalArgumentException(
					"effective weight must be from 0 to the largest, %d; got %d".formatted(largest, effective));
		}
		if (effective == 0) {
			return 0;
		}
		long roundedHalfUp = (2L * SCALE * effective + largest) / (2L * largest);
		return (int) Math.max(1, roundedHalfUp);
	}

	/**
	 * @param effective an instance's effective weight, from 0 to {@code largest}
	 * @param largest the largest effective weight of the service's routable instances
	 * @return the SRV weight: 256 × {@link #haproxyWeight}, from 0 to 65280
	 */
	static int srvWeight(int effective, int largest) {
		return HAPROXY_UNIT * haproxyWeight(effective, largest);
	}

}

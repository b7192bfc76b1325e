package dev.ballast.registry;

import java.time.Instant;

/**
 * A registered check and what its probes last said.
 *
 * @param service the instance's service
 * @param instanceId the instance
 * @param position its place among the instance's checks, from 0
 * @param definition what to probe and how
 * @param keepsLease whether its probes keep the instance's lease (it has none of its own)
 * @param status the last status
 * @param output a short account of the last probe that changed the status
 * @param statusSince when the status last changed
 * @param instancePort the port of its instance, to which a probe of a loopback address is
 * held ({@link CheckTargets#refusal})
 */
public record StoredCheck(ServiceName service, InstanceId instanceId, int position, CheckDefinition definition,
		boolean keepsLease, CheckStatus status, String output, Instant statusSince, Port instancePort) {

	/**
	 * Where an HTTP probe's output turns from its verdict to the body the target
	 * answered, as Consul writes it ("HTTP GET http://…: 500 Output: …").
	 */
	public static final String BODY = " Output: ";

	/** The longest output shown to a caller who may not write the check's service. */
	public static final int SHOWN_TO_READERS = 256;

	/**
	 * Consul's name for it: {@code service:<id>} for the first check of an instance
	 * without a lease of its own, otherwise {@code service:<id>:<n>} counting from 1 (an
	 * instance with a lease has its TTL check as {@code service:<id>}).
	 */
	public String consulId() {
		return "service:" + instanceId.value() + (keepsLease && position == 0 ? "" : ":" + (position + 1));
	}

	/**
	 * The output as a caller sees it: whole to one that may write the service (what its
	 * own target answered), and to others only the verdict, without the body the target
	 * answered and at most {@link #SHOWN_TO_READERS} characters. A check's target answers
	 * the registry, not the reader, so a reader learns that it failed and how, not what
	 * it said.
	 */
	public String shownOutput(boolean mayWrite) {
		if (mayWrite) {
			return output;
		}
		int body = output.indexOf(BODY);
		String verdict = body < 0 ? output : output.substring(0, body);
		return verdict.length() <= SHOWN_TO_READERS ? verdict : Checks.prefix(verdict, SHOWN_TO_READERS) + "…";
	}

	/** A stable key for sharing checks among nodes and placing their probe times. */
	public String key() {
		return service.value() + "/" + instanceId.value() + "/" + position;
	}

}

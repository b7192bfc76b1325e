package dev.ballast.instance;

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
 */
public record StoredCheck(ServiceName service, InstanceId instanceId, int position, CheckDefinition definition,
		boolean keepsLease, CheckStatus status, String output, Instant statusSince) {

	/**
	 * Consul's name for it: {@code service:<id>} for the first check of an instance
	 * without a lease of its own, otherwise {@code service:<id>:<n>} counting from 1 (an
	 * instance with a lease has its TTL check as {@code service:<id>}).
	 */
	public String consulId() {
		return "service:" + instanceId.value() + (keepsLease && position == 0 ? "" : ":" + (position + 1));
	}

	/** A stable key for sharing checks among nodes and placing their probe times. */
	public String key() {
		return service.value() + "/" + instanceId.value() + "/" + position;
	}

}

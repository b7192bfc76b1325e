package dev.ballast.registry;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Why an instance is {@link Health#CRITICAL}: the one record of its cause, kept with the
 * instance, which every reader shows (the instance resource, watch events, the console,
 * the guard's refusals) instead of guessing it from the lease's times.
 */
public enum CriticalReason {

	/** Its lease ran out: nothing renewed it within its TTL. */
	LEASE_EXPIRED("lease-expired", "its lease ran out", "it renews its lease"),

	/** A check the registry runs on it turned critical. */
	CHECK_FAILING("check-failing", "a check the registry runs on it fails", "its checks pass"),

	/**
	 * It reported itself critical: a failing TTL check, or a registration with
	 * {@code Status: critical}.
	 */
	REPORTED_CRITICAL("reported-critical", "it reported itself critical", "it reports passing");

	private final String spelled;

	private final String words;

	private final String back;

	CriticalReason(String spelled, String words, String back) {
		this.spelled = spelled;
		this.words = words;
		this.back = back;
	}

	/** As the API and the database spell it: {@code lease-expired}. */
	@JsonValue
	public String spelled() {
		return spelled;
	}

	/** The cause in words, for sentences: "its lease ran out". */
	String words() {
		return words;
	}

	/** What brings it back, in words: "it renews its lease". */
	String back() {
		return back;
	}

	static CriticalReason spelled(String text) {
		for (CriticalReason reason : values()) {
			if (reason.spelled.equals(text)) {
				return reason;
			}
		}
		throw new IllegalArgumentException("no critical reason is spelled " + text);
	}

}

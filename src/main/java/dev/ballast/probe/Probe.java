package dev.ballast.probe;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.Port;

/**
 * One kind of probe. {@link #run} blocks its caller (a virtual thread) until the exchange
 * ends or its {@link Deadline} closes the connection, and never throws: every failure is
 * a critical outcome that says what went wrong.
 */
interface Probe {

	/**
	 * @param instancePort the port of the check's instance
	 */
	ProbeOutcome run(CheckDefinition check, Port instancePort, Deadline deadline);

	/**
	 * The outcome of an exchange that ended with {@code failure}: the deadline's passing
	 * (whatever the closed connection threw), a target that may not be probed, or what
	 * went wrong.
	 */
	static ProbeOutcome failed(String what, Deadline deadline, Exception failure) {
		if (failure instanceof Dialer.NotProbed refused) {
			return ProbeOutcome.critical(what + ": not probed: " + refused.getMessage());
		}
		if (deadline.passed()) {
			return ProbeOutcome.critical(what + ": no answer within " + deadline.timeout().toMillis() + " ms");
		}
		return ProbeOutcome.critical(what + ": " + failure.getClass().getSimpleName()
				+ (failure.getMessage() == null ? "" : " " + failure.getMessage()));
	}

}

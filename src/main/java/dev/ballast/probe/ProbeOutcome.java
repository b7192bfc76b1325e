package dev.ballast.probe;

import dev.ballast.registry.CheckStatus;
import dev.ballast.registry.Checks;

/**
 * What one probe found.
 *
 * @param status its verdict
 * @param output a short account, as Consul gives it ("HTTP GET http://…: 200 Output: …"),
 * made storable text as it is made ({@link Checks#storableOutput}): the check's row and
 * the audit entry of its turn carry the same text
 */
record ProbeOutcome(CheckStatus status, String output) {

	ProbeOutcome {
		output = Checks.storableOutput(output);
	}

	static ProbeOutcome critical(String output) {
		return new ProbeOutcome(CheckStatus.CRITICAL, output);
	}

}

package dev.ballast.probe;

import dev.ballast.instance.CheckStatus;

/**
 * What one probe found.
 *
 * @param status its verdict
 * @param output a short account, as Consul gives it ("HTTP GET http://…: 200 OK Output:
 * …")
 */
record ProbeOutcome(CheckStatus status, String output) {

	static ProbeOutcome critical(String output) {
		return new ProbeOutcome(CheckStatus.CRITICAL, output);
	}

}

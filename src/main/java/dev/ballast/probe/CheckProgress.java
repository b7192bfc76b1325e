package dev.ballast.probe;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckStatus;

/**
 * A check's status and the results in a row behind it, as Consul's
 * {@code FailuresBeforeCritical} and {@code SuccessBeforePassing} judge them: a check
 * turns critical after that many failures in a row, and back after that many successes in
 * a row. A warning (HTTP 429) is not a failure: it is shown at once and keeps the
 * instance routable.
 *
 * @param status what the check says now
 * @param successes successes in a row (warnings count)
 * @param failures failures in a row
 */
record CheckProgress(CheckStatus status, int successes, int failures) {

	/** A check as registered or as a new owner finds it stored: no results behind it. */
	static CheckProgress of(CheckStatus status) {
		return new CheckProgress(status, 0, 0);
	}

	/** After one more probe result. */
	CheckProgress after(CheckStatus result, CheckDefinition definition) {
		if (result == CheckStatus.CRITICAL) {
			int inRow = failures + 1;
			CheckStatus next = status == CheckStatus.CRITICAL || inRow >= definition.failuresBeforeCritical()
					? CheckStatus.CRITICAL : status;
			return new CheckProgress(next, 0, Math.min(inRow, Integer.MAX_VALUE - 1));
		}
		int inRow = successes + 1;
		CheckStatus next = status != CheckStatus.CRITICAL || inRow >= definition.successBeforePassing() ? result
				: CheckStatus.CRITICAL;
		return new CheckProgress(next, Math.min(inRow, Integer.MAX_VALUE - 1), 0);
	}

}

package dev.ballast.probe;

import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

import dev.ballast.instance.CheckStatus;
import dev.ballast.instance.Checks;
import dev.ballast.instance.InstanceDirectory;
import dev.ballast.instance.StoredCheck;
import dev.ballast.lease.HealthReports;
import dev.ballast.web.NotFoundException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Turns probe results into a check's status and its instance's health. Only a change of
 * status writes: the check's row, and then the instance through the lease module's one
 * path ({@link HealthReports}), so that a failing check ejects within the service's
 * ejection cap exactly as an expiring lease does, and an instance comes back only when
 * none of its checks is critical. A check that flaps between results in a row below its
 * thresholds writes nothing.
 */
@Component
class ProbeVerdicts {

	private static final Logger log = LoggerFactory.getLogger(ProbeVerdicts.class);

	private final Checks checks;

	private final HealthReports reports;

	private final InstanceDirectory directory;

	private final Clock clock;

	/**
	 * {@code ballast.checks.probes} by result, registered once: a lookup per probe costs.
	 */
	private final Map<CheckStatus, Counter> probes = new EnumMap<>(CheckStatus.class);

	ProbeVerdicts(Checks checks, HealthReports reports, InstanceDirectory directory, Clock clock,
			MeterRegistry meters) {
		this.checks = checks;
		this.reports = reports;
		this.directory = directory;
		this.clock = clock;
		for (CheckStatus status : CheckStatus.values()) {
			probes.put(status, meters.counter("ballast.checks.probes", "result", status.spelled()));
		}
	}

	/** One probe's result for a check this node owns. */
	void judge(State state, ProbeOutcome outcome) {
		probes.get(outcome.status()).increment();
		StoredCheck check = state.check;
		CheckProgress before = state.progress;
		CheckProgress after = before.after(outcome.status(), check.definition());
		state.progress = after;
		Instant now = clock.instant();
		try {
			if (after.status() != before.status()) {
				changed(state, before.status(), after.status(), outcome, now);
			}
			else if (after.status() == CheckStatus.CRITICAL && check.definition().deregisterAfter() != null
					&& !now.isBefore(state.since.plus(check.definition().deregisterAfter()))) {
				log.info("Removing {} of service {}: its check {} has been critical since {}", check.instanceId(),
						check.service(), check.consulId(), state.since);
				directory.deregister(check.service(), check.instanceId());
			}
		}
		catch (NotFoundException ex) {
			// Deregistered meanwhile: its checks go with it at the next refresh.
			log.debug("Check {} outlived its instance", check.key());
		}
	}

	private void changed(State state, CheckStatus before, CheckStatus after, ProbeOutcome outcome, Instant now) {
		StoredCheck check = state.check;
		if (!checks.record(check, after, outcome.output(), now)) {
			return;
		}
		state.since = now;
		if (after == CheckStatus.CRITICAL) {
			reports.probeFailed(check.service(), check.instanceId(), check.keepsLease(), outcome.output());
		}
		else if (before == CheckStatus.CRITICAL && !checks.failing(check.service(), check.instanceId())) {
			reports.probesPass(check.service(), check.instanceId());
		}
	}

	/**
	 * Renews the lease of an instance whose checks keep it. A renewal while a check is
	 * critical does not bring it back ({@code LeaseRevival}): it only keeps it listed.
	 */
	void renewLease(StoredCheck check) {
		try {
			reports.pass(check.service(), check.instanceId());
		}
		catch (NotFoundException ex) {
			log.debug("Lease of {} outlived its instance", check.key());
		}
	}

	/** What this node knows of a check it owns, between probes. */
	static final class State {

		private final StoredCheck check;

		private volatile CheckProgress progress;

		private volatile Instant since;

		State(StoredCheck check) {
			this.check = check;
			this.progress = CheckProgress.of(check.status());
			this.since = check.statusSince();
		}

		/** The status this node last judged, and stored. */
		CheckStatus status() {
			return progress.status();
		}

	}

}

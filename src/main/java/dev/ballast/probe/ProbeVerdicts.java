package dev.ballast.probe;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;

import dev.ballast.lease.HealthReports;
import dev.ballast.registry.CheckStatus;
import dev.ballast.registry.Checks;
import dev.ballast.registry.StoredCheck;
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
 * <p>
 * A verdict is state, not an event: what a check says is compared with what this node has
 * stored of it, not with the last probe's result, so a verdict whose write failed (the
 * database paused, the pool busy) is written again by the next probe, until it lands. A
 * check whose verdict stays unstored is counted in {@code ballast.checks.unstored} and
 * logged once it has been for {@link #UNSTORED_INTERVALS} intervals.
 * <p>
 * Writes of one service's verdicts go one at a time, and at most {@link #WRITERS} at once
 * in all: many verdicts of one service (a hundred instances failing together) queue here,
 * on virtual threads, rather than for the service's row lock while holding connections
 * the API and other services' verdicts need.
 */
@Component
class ProbeVerdicts {

	private static final Logger log = LoggerFactory.getLogger(ProbeVerdicts.class);

	/** Verdict writes at once, of the pool's connections. */
	static final int WRITERS = 4;

	/** Intervals a verdict may stay unstored before it is logged. */
	static final int UNSTORED_INTERVALS = 3;

	/**
	 * How often a removal the ejection cap keeps from happening is tried again: about a
	 * lease sweep, which is what may eject the instance meanwhile.
	 */
	private static final Duration REMOVAL_RETRY = Duration.ofSeconds(5);

	private final Checks checks;

	private final HealthReports reports;

	private final Clock clock;

	/**
	 * {@code ballast.checks.probes} by result, registered once: a lookup per probe costs.
	 */
	private final Map<CheckStatus, Counter> probes = new EnumMap<>(CheckStatus.class);

	private final Counter failedWrites;

	/** One lane per service (by hash): a service's verdicts are written in turn. */
	private final ReentrantLock[] lanes = new ReentrantLock[64];

	private final Semaphore writers = new Semaphore(WRITERS);

	ProbeVerdicts(Checks checks, HealthReports reports, Clock clock, MeterRegistry meters) {
		this.checks = checks;
		this.reports = reports;
		this.clock = clock;
		for (CheckStatus status : CheckStatus.values()) {
			probes.put(status, meters.counter("ballast.checks.probes", "result", status.spelled()));
		}
		this.failedWrites = Counter.builder("ballast.checks.verdict.failures")
			.description("Verdict writes that failed, each asserted again by the check's next probe")
			.register(meters);
		for (int lane = 0; lane < lanes.length; lane++) {
			lanes[lane] = new ReentrantLock();
		}
	}

	/** One probe's result for a check this node owns. */
	void judge(State state, ProbeOutcome outcome) {
		probes.get(outcome.status()).increment();
		StoredCheck check = state.check;
		CheckProgress after = state.progress.after(outcome.status(), check.definition());
		state.progress = after;
		if (state.settled() && !removable(state)) {
			return;
		}
		ReentrantLock lane = lanes[Math.floorMod(check.service().hashCode(), lanes.length)];
		lane.lock();
		try {
			writers.acquireUninterruptibly();
			try {
				if (!state.settled()) {
					store(state, after.status(), outcome.output(), clock.instant());
				}
				if (removable(state)) {
					remove(state);
				}
			}
			finally {
				writers.release();
			}
		}
		catch (NotFoundException ex) {
			// Deregistered meanwhile: its checks go with it at the next refresh.
			log.debug("Check {} outlived its instance", check.key());
			state.settle();
		}
		catch (RuntimeException ex) {
			unstored(state, ex);
		}
		finally {
			lane.unlock();
		}
	}

	/**
	 * Stores {@code status} as the check's, then its instance's health: each step once,
	 * so that a write that failed half-way is finished by the next probe.
	 */
	private void store(State state, CheckStatus status, String output, Instant now) {
		StoredCheck check = state.check;
		if (status != state.stored) {
			if (!checks.record(check, status, output, now)) {
				// Replaced by a registration meanwhile: this verdict is not its to give.
				state.settle();
				return;
			}
			boolean wasCritical = state.stored == CheckStatus.CRITICAL;
			state.stored = status;
			state.since = now;
			state.reported = status != CheckStatus.CRITICAL && !wasCritical;
		}
		if (!state.reported) {
			if (status == CheckStatus.CRITICAL) {
				reports.probeFailed(check.service(), check.instanceId(), check.keepsLease(), output);
			}
			else if (!checks.failing(check.service(), check.instanceId())) {
				reports.probesPass(check.service(), check.instanceId());
			}
			state.reported = true;
		}
		if (state.unstoredSince != null) {
			log.info("Verdict of check {} stored ({}), unstored since {}", check.key(), status.spelled(),
					state.unstoredSince);
			state.unstoredSince = null;
		}
	}

	/**
	 * Whether the check has been critical, stored and reported, for its
	 * {@code deregisterAfter}, and a removal was not tried lately.
	 */
	private boolean removable(State state) {
		Duration after = state.check.definition().deregisterAfter();
		Instant now = clock.instant();
		return after != null && state.settled() && state.stored == CheckStatus.CRITICAL
				&& !now.isBefore(state.since.plus(after))
				&& (state.removalTried == null || !now.isBefore(state.removalTried.plus(REMOVAL_RETRY)));
	}

	/**
	 * Removes the instance as the registry's own act, if the ejection cap has ejected it;
	 * one the cap holds routable stays ({@link HealthReports#removeCritical}).
	 */
	private void remove(State state) {
		StoredCheck check = state.check;
		state.removalTried = clock.instant();
		if (reports.removeCritical(check.service(), check.instanceId(),
				"check %s critical since %s".formatted(check.consulId(), state.since))) {
			log.info("Removed {} of service {}: its check {} has been critical since {}", check.instanceId(),
					check.service(), check.consulId(), state.since);
		}
	}

	private void unstored(State state, RuntimeException ex) {
		failedWrites.increment();
		Instant now = clock.instant();
		if (state.unstoredSince == null) {
			state.unstoredSince = now;
			state.warned = false;
			log.info("Verdict of check {} not stored ({}); the next probe asserts it again", state.check.key(),
					ex.toString());
		}
		else if (!state.warned && !now
			.isBefore(state.unstoredSince.plus(state.check.definition().interval().multipliedBy(UNSTORED_INTERVALS)))) {
			state.warned = true;
			log.warn("Verdict of check {} ({}) unstored since {}: {}", state.check.key(),
					state.progress.status().spelled(), state.unstoredSince, ex.toString());
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

		/** What the probes say, after the thresholds. */
		private volatile CheckProgress progress;

		/** The status this node knows to be stored in the check's row. */
		private volatile CheckStatus stored;

		/** Whether the instance's health has been told of {@link #stored}. */
		private volatile boolean reported;

		/** Since when {@link #stored} has been the check's status. */
		private volatile Instant since;

		/** Since when the verdict could not be stored, or null. */
		private volatile Instant unstoredSince;

		private volatile boolean warned;

		private volatile Instant removalTried;

		/**
		 * A check as registered or as a new owner finds it stored. A critical one is
		 * reported again by the first probe that agrees: the node that stored it may have
		 * died before it told the instance.
		 */
		State(StoredCheck check) {
			this.check = check;
			this.progress = CheckProgress.of(check.status());
			this.stored = check.status();
			this.reported = check.status() != CheckStatus.CRITICAL;
			this.since = check.statusSince();
		}

		/** The status this node knows to be stored. */
		CheckStatus stored() {
			return stored;
		}

		/** Whether what the probes say is stored, and reported to the instance. */
		boolean settled() {
			return progress.status() == stored && reported;
		}

		/** Whether the probes say something this node has not stored yet. */
		boolean unstored() {
			return !settled();
		}

		/** Nothing left to write: the check or its instance is gone. */
		void settle() {
			stored = progress.status();
			reported = true;
		}

	}

}

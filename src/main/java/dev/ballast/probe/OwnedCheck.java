package dev.ballast.probe;

import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ballast.registry.StoredCheck;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A check this node probes ({@link Prober}), and where its probing stands: its next due
 * time, the probe it has queued or running (at most one), and whether it is behind.
 */
final class OwnedCheck {

	private static final Logger log = LoggerFactory.getLogger(OwnedCheck.class);

	/** Probes in a row on time that end a check's being behind. */
	private static final int ON_TIME_AGAIN = 3;

	final StoredCheck check;

	/** When it is first probed: after the handover when just gained. */
	final Instant startAt;

	final ProbeVerdicts.State state;

	/** Whether a probe of it is queued or running. */
	final AtomicBoolean busy = new AtomicBoolean();

	volatile boolean stopped;

	volatile ScheduledFuture<?> next;

	volatile ProbeSlots.Ticket ticket;

	volatile Deadline inFlight;

	/** When the prober last renewed the lease its probes keep; the membership beat's. */
	Instant renewAt = Instant.MIN;

	/** When its probes began to be skipped, or null while it is on time. */
	private volatile Instant behindSince;

	/** Probes in a row that started on time since the last one skipped. */
	private volatile int onTimeInRow;

	OwnedCheck(StoredCheck check, Instant startAt) {
		this.check = check;
		this.startAt = startAt;
		this.state = new ProbeVerdicts.State(check);
	}

	/**
	 * A probe of it was skipped at {@code now}.
	 * @return whether that makes it behind (it was not already), to be said once
	 */
	boolean skipped(Instant now) {
		onTimeInRow = 0;
		if (behindSince != null) {
			return false;
		}
		behindSince = now;
		return true;
	}

	/**
	 * A probe of it started {@code late} ms after its due time. It is on time again after
	 * {@link #ON_TIME_AGAIN} such probes in a row, so that a check that is skipped every
	 * other time is said once, not at every turn.
	 */
	void started(long late) {
		if (behindSince == null || late >= check.definition().interval().toMillis() / 2) {
			return;
		}
		onTimeInRow++;
		if (onTimeInRow >= ON_TIME_AGAIN) {
			log.info("Check {} is on time again (behind since {})", check.key(), behindSince);
			behindSince = null;
		}
	}

	/** Deleted or replaced: no probe of it starts, and one queued or running ends now. */
	void stop() {
		stopped = true;
		ScheduledFuture<?> scheduled = next;
		if (scheduled != null) {
			scheduled.cancel(false);
		}
		ProbeSlots.Ticket queued = ticket;
		if (queued != null && queued.cancel()) {
			busy.set(false);
		}
		Deadline running = inFlight;
		if (running != null) {
			running.cancel();
		}
	}

}

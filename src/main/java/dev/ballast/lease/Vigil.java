package dev.ballast.lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.ballast.database.Reachability;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Whether this node kept watching leases between two sweep ticks, so that a late tick is
 * no outage. A tick can come late because the sweep or its flush was slow under load
 * while this node kept absorbing heartbeats; extending every lease then only postpones
 * real expiries, and at 100,000 instances the extension itself outlived the statement
 * timeout. The registry was watching when this node wrote the previous tick itself, its
 * database stayed reachable since, and the node was never paused: a thread that wakes
 * every few hundred milliseconds sees a stopped process (a suspended VM, a stop signal, a
 * long collection) as a wake-up later than {@link LeaseSettings#pauseTolerance()}, and a
 * clock that jumped ahead in the same way. Any doubt leaves the gap to {@link SweepGap}.
 */
@Component
class Vigil implements SmartLifecycle {

	private final Clock clock;

	private final Reachability reachability;

	private final Duration tolerance;

	private final long wakeNanos;

	private volatile Instant lastTick;

	private volatile Instant awakeAt;

	/** When the last pause this node saw ended; null if it saw none. */
	private volatile Instant pauseEndedAt;

	private volatile Thread watch;

	Vigil(Clock clock, Reachability reachability, LeaseSettings settings) {
		this.clock = clock;
		this.reachability = reachability;
		this.tolerance = settings.pauseTolerance();
		this.wakeNanos = Math.clamp(settings.pauseTolerance().toNanos() / 8, TimeUnit.MILLISECONDS.toNanos(10),
				TimeUnit.MILLISECONDS.toNanos(250));
		this.awakeAt = clock.instant();
	}

	/** Records a tick this node wrote. */
	void ticked(Instant at) {
		lastTick = at;
	}

	/**
	 * @param previousTick the tick before {@code now}, as the database recorded it
	 * @return whether this node watched leases all the time from it to {@code now}
	 */
	boolean keptSince(Instant previousTick, Instant now) {
		Instant pauseEnded = pauseEndedAt;
		return previousTick != null && previousTick.equals(lastTick) && reachability.reachableSince(previousTick)
				&& (pauseEnded == null || pauseEnded.isBefore(previousTick))
				&& !Duration.between(awakeAt, now).minus(tolerance).isPositive();
	}

	/** When the watch last woke, by the registry's clock. */
	Instant awakeAt() {
		return awakeAt;
	}

	private void watch() {
		while (watch == Thread.currentThread()) {
			LockSupport.parkNanos(wakeNanos);
			Instant now = clock.instant();
			if (Duration.between(awakeAt, now).compareTo(tolerance) > 0) {
				pauseEndedAt = now;
			}
			awakeAt = now;
		}
	}

	@Override
	public void start() {
		// A stopped node watched nothing: a restart (a paused context started again, a
		// restored checkpoint) ends a pause.
		awakeAt = clock.instant();
		pauseEndedAt = awakeAt;
		// Assigned before it runs: the loop runs while it is the current watch.
		Thread thread = Thread.ofPlatform().name("ballast-lease-vigil").daemon().unstarted(this::watch);
		watch = thread;
		thread.start();
	}

	@Override
	public void stop() {
		Thread stopping = watch;
		watch = null;
		if (stopping != null) {
			LockSupport.unpark(stopping);
		}
	}

	@Override
	public boolean isRunning() {
		return watch != null;
	}

}

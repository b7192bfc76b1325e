package dev.ballast.watch;

import dev.ballast.database.PeriodicJobs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The watch timers: stream upkeep, catch-up reads, subscriber progress, retention.
 * {@code ballast.watch.scheduled=false} turns them off, for tests that drive a node's
 * clock and must not prune or expire other nodes' rows by it.
 */
@Component
@EnableScheduling
@ConditionalOnBooleanProperty(name = "ballast.watch.scheduled", matchIfMissing = true)
class WatchSchedule {

	private static final Logger log = LoggerFactory.getLogger(WatchSchedule.class);

	private final ChangeFollower follower;

	private final StreamUpkeep upkeep;

	private final Subscribers subscribers;

	private final ChangeLogRetention retention;

	private final PeriodicJobs jobs;

	WatchSchedule(ChangeFollower follower, StreamUpkeep upkeep, Subscribers subscribers, ChangeLogRetention retention,
			PeriodicJobs jobs) {
		this.jobs = jobs;
		this.follower = follower;
		this.upkeep = upkeep;
		this.subscribers = subscribers;
		this.retention = retention;
	}

	/** Serves from memory, so it runs during an outage too. */
	@Scheduled(fixedDelay = 1000)
	void tick() {
		jobs.run("Stream upkeep", upkeep::tick);
	}

	/**
	 * Checks reachability itself; the database's return triggers a catch-up of its own.
	 */
	@Scheduled(fixedDelayString = "${ballast.watch.catch-up-interval:2s}")
	void catchUp() {
		jobs.run("Change catch-up", follower::catchUp);
	}

	/** Progress stays in memory until the database is back. */
	@Scheduled(fixedDelayString = "${ballast.watch.flush-interval:1s}")
	void flushSubscribers() {
		jobs.whenReachable("Subscriber progress flush", subscribers::flush);
	}

	@Scheduled(fixedDelay = 60_000, initialDelay = 60_000)
	void prune() {
		jobs.whenReachable("Change log retention", () -> {
			int deleted = retention.prune();
			if (deleted > 0) {
				log.info("Deleted {} changes older than the change log retention", deleted);
			}
		});
	}

}

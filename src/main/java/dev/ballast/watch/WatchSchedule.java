package dev.ballast.watch;

import dev.ballast.database.Reachability;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionException;

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

	private final Reachability reachability;

	WatchSchedule(ChangeFollower follower, StreamUpkeep upkeep, Subscribers subscribers, ChangeLogRetention retention,
			Reachability reachability) {
		this.reachability = reachability;
		this.follower = follower;
		this.upkeep = upkeep;
		this.subscribers = subscribers;
		this.retention = retention;
	}

	@Scheduled(fixedDelay = 1000)
	void tick() {
		upkeep.tick();
	}

	@Scheduled(fixedDelayString = "${ballast.watch.catch-up-interval:2s}")
	void catchUp() {
		follower.catchUp();
	}

	@Scheduled(fixedDelayString = "${ballast.watch.flush-interval:1s}")
	void flushSubscribers() {
		if (!reachability.reachable()) {
			// Progress stays in memory until the database is back.
			return;
		}
		try {
			subscribers.flush();
		}
		catch (DataAccessException | TransactionException ex) {
			log.warn("Subscriber progress not written yet: {}", ex.getMessage());
		}
	}

	@Scheduled(fixedDelay = 60_000, initialDelay = 60_000)
	void prune() {
		if (!reachability.reachable()) {
			return;
		}
		try {
			int deleted = retention.prune();
			if (deleted > 0) {
				log.info("Deleted {} changes older than the change log retention", deleted);
			}
		}
		catch (DataAccessException | TransactionException ex) {
			log.warn("Change log retention did not run: {}", ex.getMessage());
		}
	}

}

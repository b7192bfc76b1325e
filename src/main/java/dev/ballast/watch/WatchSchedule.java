package dev.ballast.watch;

import dev.ballast.database.PeriodicJobs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * The watch timers: stream upkeep, catch-up reads, subscriber progress, retention, at the
 * intervals of {@link WatchSettings}. {@code ballast.watch.scheduled=false} turns them
 * off, for tests that drive a node's clock and must not prune or expire other nodes' rows
 * by it.
 */
@Component
@EnableScheduling
class WatchSchedule implements SchedulingConfigurer {

	/** Stream upkeep: keepalives and age limits are judged to the second. */
	private static final Duration UPKEEP = Duration.ofSeconds(1);

	private static final Duration PRUNING = Duration.ofMinutes(1);

	private static final Logger log = LoggerFactory.getLogger(WatchSchedule.class);

	private final ChangeFollower follower;

	private final StreamUpkeep upkeep;

	private final Subscribers subscribers;

	private final ChangeLogRetention retention;

	private final PeriodicJobs jobs;

	private final WatchSettings settings;

	WatchSchedule(ChangeFollower follower, StreamUpkeep upkeep, Subscribers subscribers, ChangeLogRetention retention,
			PeriodicJobs jobs, WatchSettings settings) {
		this.jobs = jobs;
		this.follower = follower;
		this.upkeep = upkeep;
		this.subscribers = subscribers;
		this.retention = retention;
		this.settings = settings;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (settings.scheduled()) {
			registrar.addFixedDelayTask(this::tick, UPKEEP);
			registrar.addFixedDelayTask(this::catchUp, settings.catchUpInterval());
			registrar.addFixedDelayTask(this::flushSubscribers, settings.flushInterval());
			registrar.addFixedDelayTask(new FixedDelayTask(this::prune, PRUNING, PRUNING));
		}
	}

	/** Serves from memory, so it runs during an outage too. */
	void tick() {
		jobs.run("Stream upkeep", upkeep::tick);
	}

	/**
	 * Checks reachability itself; the database's return triggers a catch-up of its own.
	 */
	void catchUp() {
		jobs.run("Change catch-up", follower::catchUp);
	}

	/** Progress stays in memory until the database is back. */
	void flushSubscribers() {
		jobs.whenReachable("Subscriber progress flush", subscribers::flush);
	}

	void prune() {
		jobs.whenReachable("Change log retention", () -> {
			int deleted = retention.prune();
			if (deleted > 0) {
				log.info("Deleted {} changes older than the change log retention", deleted);
			}
		});
	}

}

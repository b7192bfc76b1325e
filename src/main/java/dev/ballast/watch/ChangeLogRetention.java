package dev.ballast.watch;

import java.time.Clock;

import dev.ballast.registry.ChangeLog;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Deletes changes older than the retention. A client resuming from a revision the log no
 * longer holds gets a fresh snapshot instead, so this only ever costs a bigger answer.
 */
@Component
class ChangeLogRetention {

	private final ChangeLog log;

	private final Clock clock;

	private final WatchSettings settings;

	ChangeLogRetention(ChangeLog log, Clock clock, WatchSettings settings) {
		this.log = log;
		this.clock = clock;
		this.settings = settings;
	}

	/** Prunes on one node at a time; returns how many changes were deleted. */
	@Transactional
	int prune() {
		return log.prune(clock.instant().minus(settings.retention()));
	}

}

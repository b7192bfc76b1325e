package dev.ballast.audit;

import dev.ballast.database.PeriodicJobs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The audit retention timer. {@code ballast.audit.scheduled=false} turns it off, for
 * tests that drive a node's clock and must not prune other nodes' events by it.
 */
@Component
@EnableScheduling
@ConditionalOnBooleanProperty(name = "ballast.audit.scheduled", matchIfMissing = true)
class AuditSchedule {

	private static final Logger log = LoggerFactory.getLogger(AuditSchedule.class);

	private final AuditRetention retention;

	private final PeriodicJobs jobs;

	AuditSchedule(AuditRetention retention, PeriodicJobs jobs) {
		this.retention = retention;
		this.jobs = jobs;
	}

	@Scheduled(fixedDelayString = "${ballast.audit.prune-interval:1h}", initialDelay = 60_000)
	void prune() {
		jobs.whenReachable("Audit retention", () -> {
			int deleted = retention.prune();
			if (deleted > 0) {
				log.info("Deleted {} audit events older than the audit retention", deleted);
			}
		});
	}

}

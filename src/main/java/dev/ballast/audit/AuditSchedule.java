package dev.ballast.audit;

import java.time.Duration;

import dev.ballast.database.PeriodicJobs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * The audit retention timer, every {@code ballast.audit.prune-interval} from a minute
 * after the start. {@code ballast.audit.scheduled=false} turns it off, for tests that
 * drive a node's clock and must not prune other nodes' events by it.
 */
@Component
@EnableScheduling
class AuditSchedule implements SchedulingConfigurer {

	private static final Duration FIRST_PRUNE = Duration.ofMinutes(1);

	private static final Logger log = LoggerFactory.getLogger(AuditSchedule.class);

	private final AuditRetention retention;

	private final PeriodicJobs jobs;

	private final AuditSettings settings;

	AuditSchedule(AuditRetention retention, PeriodicJobs jobs, AuditSettings settings) {
		this.retention = retention;
		this.jobs = jobs;
		this.settings = settings;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (settings.scheduled()) {
			registrar.addFixedDelayTask(new FixedDelayTask(this::prune, settings.pruneInterval(), FIRST_PRUNE));
		}
	}

	void prune() {
		jobs.whenReachable("Audit retention", () -> {
			int deleted = retention.prune();
			if (deleted > 0) {
				log.info("Deleted {} audit events older than the audit retention", deleted);
			}
		});
	}

}

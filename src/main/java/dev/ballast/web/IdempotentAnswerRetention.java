package dev.ballast.web;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;

import dev.ballast.database.AdvisoryLock;
import dev.ballast.database.PeriodicJobs;
import dev.ballast.database.Pruning;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Forgets answers kept for {@code Idempotency-Key}s once they are older than
 * {@link IdempotencyKeys#KEPT}, on one node at a time and in batches, as the change log
 * and the audit log are pruned: every {@code ballast.idempotency.prune-interval} from a
 * minute after the start; {@code ballast.idempotency.scheduled=false} leaves it off
 * (tests drive it).
 */
@Component
@EnableScheduling
class IdempotentAnswerRetention implements SchedulingConfigurer {

	private static final Duration FIRST_PRUNE = Duration.ofMinutes(1);

	private static final Logger log = LoggerFactory.getLogger(IdempotentAnswerRetention.class);

	private final JdbcClient jdbc;

	private final Clock clock;

	private final TransactionTemplate transactions;

	private final PeriodicJobs jobs;

	private final IdempotencySettings settings;

	IdempotentAnswerRetention(JdbcClient jdbc, Clock clock, TransactionTemplate transactions, PeriodicJobs jobs,
			IdempotencySettings settings) {
		this.jdbc = jdbc;
		this.clock = clock;
		this.transactions = transactions;
		this.jobs = jobs;
		this.settings = settings;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (settings.scheduled()) {
			registrar
				.addFixedDelayTask(new FixedDelayTask(this::forgetOldAnswers, settings.pruneInterval(), FIRST_PRUNE));
		}
	}

	/**
	 * Prunes unless another node is pruning; returns how many answers were deleted. The
	 * advisory lock lasts as long as the transaction, so the deletes run in one.
	 */
	int prune() {
		Timestamp cutoff = Timestamp.from(clock.instant().minus(IdempotencyKeys.KEPT));
		Integer deleted = transactions
			.execute(status -> Pruning.olderThan(jdbc, AdvisoryLock.IDEMPOTENT_ANSWER_PRUNING, """
					DELETE FROM idempotent_answer WHERE ctid IN (
					    SELECT ctid FROM idempotent_answer WHERE created_at < ? LIMIT %d)""", cutoff));
		return deleted == null ? 0 : deleted;
	}

	void forgetOldAnswers() {
		jobs.whenReachable("Idempotent answer retention", () -> {
			int deleted = prune();
			if (deleted > 0) {
				log.info("Deleted {} idempotent answers older than {}", deleted, IdempotencyKeys.KEPT);
			}
		});
	}

}

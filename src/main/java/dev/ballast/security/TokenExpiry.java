package dev.ballast.security;

import dev.ballast.database.PeriodicJobs;

import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * The timer that ends what an expired token holds open: every
 * {@code ballast.tokens.expiry-check} it lets {@link Tokens} announce the tokens in force
 * again if one has expired since, so a watch stream opened with it ends at most about
 * that late after {@code expiresAt}. Serves from memory, so it runs while the database is
 * away too. {@code ballast.tokens.scheduled=false} leaves it off (tests drive it).
 */
@Component
@EnableScheduling
class TokenExpiry implements SchedulingConfigurer {

	private final Tokens tokens;

	private final PeriodicJobs jobs;

	private final TokenSettings settings;

	TokenExpiry(Tokens tokens, PeriodicJobs jobs, TokenSettings settings) {
		this.tokens = tokens;
		this.jobs = jobs;
		this.settings = settings;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (settings.scheduled()) {
			registrar.addFixedDelayTask(this::tick, settings.expiryCheck());
		}
	}

	void tick() {
		jobs.run("Token expiry", tokens::endExpired);
	}

}

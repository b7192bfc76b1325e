package dev.ballast.security;

import dev.ballast.database.PeriodicJobs;

import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The timer that ends what an expired token holds open: every quarter second it lets
 * {@link Tokens} announce the tokens in force again if one has expired since, so a watch
 * stream opened with it ends at most about that late after {@code expiresAt}. Serves from
 * memory, so it runs while the database is away too.
 */
@Component
@EnableScheduling
class TokenExpiry {

	private final Tokens tokens;

	private final PeriodicJobs jobs;

	TokenExpiry(Tokens tokens, PeriodicJobs jobs) {
		this.tokens = tokens;
		this.jobs = jobs;
	}

	@Scheduled(fixedDelay = 250)
	void tick() {
		jobs.run("Token expiry", tokens::endExpired);
	}

}

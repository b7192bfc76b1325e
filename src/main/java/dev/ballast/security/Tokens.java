package dev.ballast.security;

import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import dev.ballast.database.Notified;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * Every token, held in memory: authenticating a request touches no database, so
 * heartbeats and reads keep working while PostgreSQL is away. Reloaded whenever any node
 * changes a token (the notification arrives on commit), so a deleted token stops working
 * on every node at once; a node that was disconnected reloads when it reconnects. The
 * first load comes with the admin bootstrap, once the schema is there.
 */
@Component
class Tokens implements Notified {

	private static final Logger log = LoggerFactory.getLogger(Tokens.class);

	private final TokenStore store;

	private final Clock clock;

	private final ApplicationEventPublisher events;

	/**
	 * One {@link Caller} per token, made once per reload: a request authenticates by a
	 * digest and a lookup, and allocates no authorities.
	 */
	private volatile Map<SecretDigest, Caller> bySecretHash;

	private final AtomicBoolean reloadPending = new AtomicBoolean();

	/** The tokens last loaded; guarded by this object's lock. */
	private Map<SecretDigest, Token> loaded = Map.of();

	/**
	 * The earliest expiry among the tokens last announced in force, or null for none:
	 * when it comes, they are announced again without it ({@link #endExpired}).
	 */
	private volatile Instant nextExpiry;

	Tokens(TokenStore store, Clock clock, ApplicationEventPublisher events) {
		this.store = store;
		this.clock = clock;
		this.events = events;
		this.bySecretHash = Map.of();
	}

	/** The caller with this secret, unless its token is unknown or expired. */
	Optional<Caller> authenticate(String secret) {
		Caller caller = bySecretHash.get(SecretDigest.of(secret));
		return caller == null || caller.token().expiredAt(clock.instant()) ? Optional.empty() : Optional.of(caller);
	}

	/**
	 * One at a time: a reload that read the table earlier never lands after one that read
	 * it later, so a deleted token cannot come back.
	 */
	synchronized void reload() {
		loaded = store.all();
		bySecretHash = loaded.entrySet()
			.stream()
			.collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, entry -> new Caller(entry.getValue())));
		announce();
	}

	/**
	 * Announces the tokens in force again once one of them has expired, so that what
	 * outlives a request with it (an open watch stream) ends as it would were the token
	 * deleted; called by {@link TokenExpiry} at short intervals, which bound how late.
	 */
	void endExpired() {
		Instant next = nextExpiry;
		if (next != null && !clock.instant().isBefore(next)) {
			synchronized (this) {
				announce();
			}
		}
	}

	/** Publishes the tokens not expired now; called holding this object's lock. */
	private void announce() {
		Instant now = clock.instant();
		Set<String> inForce = new HashSet<>();
		Instant next = null;
		for (Token token : loaded.values()) {
			if (!token.expiredAt(now)) {
				inForce.add(token.id().toString());
				if (token.expiresAt() != null && (next == null || token.expiresAt().isBefore(next))) {
					next = token.expiresAt();
				}
			}
		}
		nextExpiry = next;
		events.publishEvent(new TokensInForce(inForce));
	}

	@Override
	public String channel() {
		return TokenStore.CHANNEL;
	}

	@Override
	public void notified(Set<String> payloads) {
		reloadSoon();
	}

	@Override
	public void connected() {
		reloadSoon();
	}

	/**
	 * Off the listener's thread, which must not wait for a pooled connection while change
	 * notifications queue behind it; notifications arriving meanwhile make one reload.
	 */
	private void reloadSoon() {
		if (reloadPending.compareAndSet(false, true)) {
			Thread.ofVirtual().name("ballast-tokens-reload").start(() -> {
				reloadPending.set(false);
				try {
					reload();
				}
				catch (DataAccessException ex) {
					log.warn("Could not reload tokens ({}); the ones held stay in force until the next notification",
							ex.getMessage());
				}
			});
		}
	}

}

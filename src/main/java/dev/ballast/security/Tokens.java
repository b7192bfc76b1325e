package dev.ballast.security;

import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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

	private volatile Map<String, Token> bySecretHash;

	Tokens(TokenStore store, Clock clock, ApplicationEventPublisher events) {
		this.store = store;
		this.clock = clock;
		this.events = events;
		this.bySecretHash = Map.of();
	}

	/** The token with this secret, unless it is unknown or expired. */
	Optional<Token> authenticate(String secret) {
		Token token = bySecretHash.get(TokenStore.key(secret));
		return token == null || token.expiredAt(clock.instant()) ? Optional.empty() : Optional.of(token);
	}

	void reload() {
		Map<String, Token> loaded = store.all();
		bySecretHash = loaded;
		events.publishEvent(new TokensInForce(
				loaded.values().stream().map(token -> token.id().toString()).collect(Collectors.toSet())));
	}

	@Override
	public String channel() {
		return TokenStore.CHANNEL;
	}

	@Override
	public void notified(Set<String> payloads) {
		reloadQuietly();
	}

	@Override
	public void connected() {
		reloadQuietly();
	}

	private void reloadQuietly() {
		try {
			reload();
		}
		catch (DataAccessException ex) {
			log.warn("Could not reload tokens ({}); the ones held stay in force until the next notification",
					ex.getMessage());
		}
	}

}

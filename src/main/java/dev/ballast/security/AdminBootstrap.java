package dev.ballast.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.UUID;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.audit.AuditTrail;
import dev.ballast.database.DataDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The first admin token, made at startup only when no admin token exists: the one given
 * in {@code BALLAST_BOOTSTRAP_ADMIN_TOKEN}, or else a random one written to
 * {@code <data-dir>/admin.token}, readable by its owner only. Only the file's path is
 * logged, never a token. Nodes starting together on one database make one token between
 * them (an advisory lock).
 */
@Component
class AdminBootstrap implements SmartInitializingSingleton {

	private static final Logger log = LoggerFactory.getLogger(AdminBootstrap.class);

	/** Long enough to carry 128 random bits in any common encoding. */
	static final int MIN_LENGTH = 32;

	private final TokenStore store;

	private final Tokens tokens;

	private final TransactionTemplate transactions;

	private final AuditTrail audit;

	private final DataDirectory dataDirectory;

	private final Clock clock;

	private final String given;

	AdminBootstrap(TokenStore store, Tokens tokens, TransactionTemplate transactions, AuditTrail audit,
			DataDirectory dataDirectory, Clock clock, @Value("${BALLAST_BOOTSTRAP_ADMIN_TOKEN:}") String given) {
		this.store = store;
		this.tokens = tokens;
		this.transactions = transactions;
		this.audit = audit;
		this.dataDirectory = dataDirectory;
		this.clock = clock;
		this.given = given.strip();
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (!given.isEmpty() && (given.length() < MIN_LENGTH || !given.chars().allMatch(c -> c > ' ' && c < 127))) {
			throw new IllegalStateException(("BALLAST_BOOTSTRAP_ADMIN_TOKEN must be at least %d printable ASCII "
					+ "characters without spaces, e.g. the output of: openssl rand -base64 32")
				.formatted(MIN_LENGTH));
		}
		transactions.executeWithoutResult(status -> {
			store.lockForBootstrap();
			if (store.anyAdminValidAt(clock.instant())) {
				return;
			}
			String secret = given.isEmpty() ? Secret.generate() : given;
			Token admin = new Token(UUID.randomUUID(), "bootstrap admin", Role.ADMIN, null, null, clock.instant(),
					null);
			store.insert(admin, Secret.sha256(secret));
			audit.recordSystem(AuditEntry.of(Action.TOKEN_CREATE, null, null, null, TokenView.of(admin)));
			if (given.isEmpty()) {
				Path file = write(secret);
				log.info("Created the first admin token; it is in {} (readable by this user only)", file);
			}
			else {
				log.info("Created the first admin token from BALLAST_BOOTSTRAP_ADMIN_TOKEN");
			}
		});
		tokens.reload();
	}

	private Path write(String secret) {
		Path file = dataDirectory.path().resolve("admin.token").toAbsolutePath();
		try {
			Files.createDirectories(file.getParent());
			Files.deleteIfExists(file);
			Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
			Files.writeString(file, secret + "\n", StandardCharsets.US_ASCII);
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not write the first admin token to " + file, ex);
		}
	}

}

package dev.ballast.security;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.ballast.database.AdvisoryLock;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The token table. Every change notifies {@value #CHANNEL} in its transaction, so every
 * node reloads its tokens as soon as the change commits.
 */
@Component
class TokenStore {

	static final String CHANNEL = "ballast_tokens";

	private final JdbcClient jdbc;

	TokenStore(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	void insert(Token token, byte[] secretSha256) {
		jdbc.sql("""
				INSERT INTO token (id, name, role, services, writes_per_second, secret_sha256, created_at, expires_at)
				VALUES (:id, :name, :role, :services, :writesPerSecond, :hash, :createdAt, :expiresAt)""")
			.param("id", token.id())
			.param("name", token.name())
			.param("role", token.role().json())
			.param("services", token.scope() == null ? new String[0] : token.scope().patterns().toArray(String[]::new))
			.param("writesPerSecond", token.writesPerSecond())
			.param("hash", secretSha256)
			.param("createdAt", Timestamp.from(token.createdAt()))
			.param("expiresAt", token.expiresAt() == null ? null : Timestamp.from(token.expiresAt()))
			.update();
		notifyNodes();
	}

	boolean delete(UUID id) {
		boolean deleted = jdbc.sql("DELETE FROM token WHERE id = ?").param(id).update() == 1;
		if (deleted) {
			notifyNodes();
		}
		return deleted;
	}

	/** Every token, keyed by the SHA-256 of its secret. */
	Map<SecretDigest, Token> all() {
		return jdbc.sql("SELECT * FROM token")
			.query((rs, row) -> Map.entry(new SecretDigest(rs.getBytes("secret_sha256")), token(rs)))
			.list()
			.stream()
			.collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, Map.Entry::getValue));
	}

	List<Token> listed() {
		return jdbc.sql("SELECT * FROM token ORDER BY created_at, id").query((rs, row) -> token(rs)).list();
	}

	/** Serializes bootstraps of concurrent nodes on one database. */
	void lockForBootstrap() {
		AdvisoryLock.BOOTSTRAP_ADMIN.take(jdbc);
	}

	boolean anyAdminValidAt(Instant now) {
		return jdbc
			.sql("SELECT EXISTS (SELECT 1 FROM token WHERE role = 'admin' AND (expires_at IS NULL OR expires_at > ?))")
			.param(Timestamp.from(now))
			.query(Boolean.class)
			.single();
	}

	/**
	 * Locks the admin tokens, so that two deletions cannot remove the last two at once.
	 */
	long adminsValidAtLocked(Instant now) {
		return jdbc
			.sql("SELECT id FROM token WHERE role = 'admin' AND (expires_at IS NULL OR expires_at > ?) FOR UPDATE")
			.param(Timestamp.from(now))
			.query(UUID.class)
			.list()
			.size();
	}

	private void notifyNodes() {
		jdbc.sql("SELECT pg_notify(?, '')").param(CHANNEL).query().singleRow();
	}

	private static Token token(ResultSet rs) throws SQLException {
		Array services = rs.getArray("services");
		List<String> patterns = Arrays.asList((String[]) services.getArray());
		Role role = Role.parse(rs.getString("role"));
		Timestamp expires = rs.getTimestamp("expires_at");
		return new Token(rs.getObject("id", UUID.class), rs.getString("name"), role,
				patterns.isEmpty() ? null : new ServiceScope(patterns), (Integer) rs.getObject("writes_per_second"),
				rs.getTimestamp("created_at").toInstant(), expires == null ? null : expires.toInstant());
	}

}

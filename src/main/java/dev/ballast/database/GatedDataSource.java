package dev.ballast.database;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Instant;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The application's connection pool behind a gate that {@link Reachability} closes while
 * the database is unreachable: a request then fails at once instead of waiting out the
 * pool's connection timeout, so writes are refused fast and reads fall back to memory
 * without a queue of threads each waiting two seconds.
 */
final class GatedDataSource extends DelegatingDataSource implements AutoCloseable {

	private volatile Instant closedSince;

	GatedDataSource(DataSource pool) {
		super(pool);
	}

	@Override
	public Connection getConnection() throws SQLException {
		refuseWhileClosed();
		return super.getConnection();
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		refuseWhileClosed();
		return super.getConnection(username, password);
	}

	/** Closes the pool behind the gate, when the application stops. */
	@Override
	public void close() throws Exception {
		if (getTargetDataSource() instanceof AutoCloseable pool) {
			pool.close();
		}
	}

	void shut(Instant since) {
		closedSince = since;
	}

	void open() {
		closedSince = null;
	}

	private void refuseWhileClosed() throws SQLTransientConnectionException {
		Instant since = closedSince;
		if (since != null) {
			throw new SQLTransientConnectionException(
					"the database is unreachable since %s; connections are refused until it answers again"
						.formatted(since),
					"08001");
		}
	}

}

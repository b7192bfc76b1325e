package dev.ballast.watch;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.ballast.database.Reachability;
import jakarta.annotation.PreDestroy;

import org.springframework.stereotype.Component;

/**
 * A small pool of the feed's own, with the application pool's settings: the change
 * listener and the reader thread's change-log reads never queue behind request traffic
 * for a connection, so a node whose requests exhaust the pool still delivers events.
 * Behind the same gate as the application pool while the database is unreachable.
 */
@Component
class FeedConnections {

	/**
	 * One for the listener, one for the change follower's reader thread, one to spare
	 * while a connection is replaced.
	 */
	private static final int SIZE = 3;

	/**
	 * Idle connections kept open besides the listener's: with one, the listener took the
	 * pool's first and the first change read after a start waited for a connection to be
	 * opened (a fork and an authentication on the server) before it could be delivered.
	 */
	private static final int KEPT_OPEN = 2;

	private final HikariDataSource pool;

	private final DataSource dataSource;

	FeedConnections(DataSource application, Reachability reachability) throws SQLException {
		if (application.isWrapperFor(HikariDataSource.class)) {
			pool = new HikariDataSource();
			application.unwrap(HikariDataSource.class).copyStateTo(pool);
			pool.setPoolName("ballast-feed");
			pool.setMaximumPoolSize(SIZE);
			pool.setMinimumIdle(KEPT_OPEN);
			dataSource = reachability.gate(pool);
		}
		else {
			pool = null;
			dataSource = application;
		}
	}

	DataSource dataSource() {
		return dataSource;
	}

	/**
	 * Closes a connection for good rather than return it to the pool: the listener's,
	 * which may still be listening on a server this node no longer writes to. Null is
	 * ignored.
	 */
	void discard(Connection connection) {
		if (connection == null) {
			return;
		}
		if (pool != null) {
			pool.evictConnection(connection);
			return;
		}
		try {
			connection.close();
		}
		catch (SQLException ex) {
			// Closing a connection that failed can fail too; it is gone either way.
		}
	}

	@PreDestroy
	void close() {
		if (pool != null) {
			pool.close();
		}
	}

}

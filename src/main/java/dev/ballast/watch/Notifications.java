package dev.ballast.watch;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import dev.ballast.database.DatabaseRestored;
import dev.ballast.database.Notified;
import dev.ballast.database.Reachability;
import dev.ballast.registry.ChangeLog;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Listens on one dedicated connection for the change notifications of every node, and
 * pokes the change follower with the services that changed; other modules' channels
 * ({@link Notified}) share the connection. A dropped connection is reopened with jittered
 * exponential backoff; after each (re)connect the follower catches up, so a notification
 * lost meanwhile only delays an event.
 *
 * <p>
 * A connection that stays up is no proof that it hears the writes: after a failover it
 * may still be open on the old primary, isolated but alive until its failover manager
 * demotes it, while this node's writes go to the new one; its notifications then stop
 * without an error, and every stream of the node freezes. So every {@link #ECHO_NANOS}
 * the listener sends a notification of its own through the application's pool, the way
 * every write goes, and requires it back on the listening connection within
 * {@link #ECHO_TIMEOUT_NANOS}; if it does not come, the connection is discarded and the
 * listener connects again, to the primary (the pool's rule, see {@code DataSourceGate}:
 * PostgreSQL refuses {@code LISTEN} on a standby anyway) and catches up.
 */
@Component
class Notifications implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(Notifications.class);

	private static final long POLL_MILLIS = 500;

	/**
	 * The channel of the listener's echo: each node's own, told apart by their payloads.
	 */
	static final String ECHO_CHANNEL = "ballast_listener_echo";

	/** How often the listener checks that it hears this node's writes. */
	static final long ECHO_NANOS = TimeUnit.SECONDS.toNanos(5);

	/**
	 * How long an echo may take: a notification arrives within milliseconds of its
	 * commit; a loaded server has seconds, as the 5 s statement timeout gives every
	 * statement.
	 */
	static final long ECHO_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

	private static final long MAX_BACKOFF_MILLIS = 10_000;

	private final FeedConnections connections;

	private final DataSource dataSource;

	/** Where this node's writes go: the echo takes the same way. */
	private final JdbcTemplate writes;

	/** This node's echo payload: the others' echoes are not its concern. */
	private final String echo = UUID.randomUUID().toString();

	private final ChangeFollower follower;

	private final Reachability reachability;

	private final List<Notified> others;

	private volatile boolean running;

	private volatile Thread thread;

	Notifications(FeedConnections connections, DataSource application, ChangeFollower follower,
			Reachability reachability, List<Notified> others) {
		this.connections = connections;
		this.dataSource = connections.dataSource();
		this.writes = new JdbcTemplate(application);
		this.follower = follower;
		this.reachability = reachability;
		this.others = others;
	}

	/** Listens again at once rather than after the rest of a long backoff. */
	@EventListener
	void on(DatabaseRestored restored) {
		Thread listener = thread;
		if (listener != null) {
			LockSupport.unpark(listener);
		}
	}

	@Override
	public void start() {
		running = true;
		thread = Thread.ofPlatform().name("ballast-watch-listen").daemon().start(this::listen);
	}

	private void listen() {
		long backoff = 100;
		while (running) {
			Connection connection = null;
			try {
				connection = dataSource.getConnection();
				connection.setAutoCommit(true);
				try (Statement statement = connection.createStatement()) {
					statement.execute("LISTEN " + ChangeLog.CHANNEL);
					statement.execute("LISTEN " + ECHO_CHANNEL);
					for (Notified other : others) {
						statement.execute("LISTEN " + other.channel());
					}
				}
				backoff = 100;
				follower.catchUp();
				others.forEach(Notified::connected);
				receive(connection);
			}
			catch (SQLException | RuntimeException ex) {
				if (running && reachability.reachable()) {
					log.warn("Change notifications interrupted ({}); reconnecting in about {} ms", ex.getMessage(),
							backoff);
				}
			}
			finally {
				// Never back into the pool: it may be alive and listening where this
				// node's writes no longer go, and another borrower would keep it so.
				connections.discard(connection);
			}
			sleep(backoff / 2 + ThreadLocalRandom.current().nextLong(backoff));
			backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
		}
	}

	private void receive(Connection connection) throws SQLException {
		PGConnection postgres = connection.unwrap(PGConnection.class);
		long echoSent = 0;
		long nextEcho = System.nanoTime() + ECHO_NANOS;
		boolean echoPending = false;
		while (running) {
			PGNotification[] notifications = postgres.getNotifications((int) POLL_MILLIS);
			long now = System.nanoTime();
			if (notifications != null && notifications.length > 0) {
				echoPending &= !heardEcho(notifications);
				deliver(notifications);
			}
			if (echoPending && now - echoSent > ECHO_TIMEOUT_NANOS) {
				throw new SQLException("this node's own notification did not come back within %d s: the listening "
					.formatted(TimeUnit.NANOSECONDS.toSeconds(ECHO_TIMEOUT_NANOS))
						+ "connection does not hear the server this node writes to", "08006");
			}
			if (!echoPending && now - nextEcho >= 0) {
				echoPending = sendEcho(connection);
				echoSent = now;
				nextEcho = now + ECHO_NANOS;
			}
		}
	}

	private boolean heardEcho(PGNotification[] notifications) {
		for (PGNotification notification : notifications) {
			if (ECHO_CHANNEL.equals(notification.getName()) && echo.equals(notification.getParameter())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Sends the echo the way writes go; true if it was sent and must come back. While
	 * writes cannot be sent either, the listening connection is only checked to be alive:
	 * a dead one fails the check.
	 */
	private boolean sendEcho(Connection connection) throws SQLException {
		try {
			writes.queryForObject("SELECT pg_notify(?, ?)", Object.class, ECHO_CHANNEL, echo);
			return true;
		}
		catch (DataAccessException ex) {
			try (Statement statement = connection.createStatement()) {
				statement.execute("SELECT 1");
			}
			return false;
		}
	}

	private void deliver(PGNotification[] notifications) {
		Map<String, Long> services = new LinkedHashMap<>();
		for (PGNotification notification : notifications) {
			if (ChangeLog.CHANNEL.equals(notification.getName())) {
				Notice notice = Notice.parse(notification.getParameter());
				services.merge(notice.service(), notice.revision(), Math::max);
			}
		}
		if (!services.isEmpty()) {
			follower.poke(services);
		}
		for (Notified other : others) {
			Set<String> payloads = new LinkedHashSet<>();
			for (PGNotification notification : notifications) {
				if (other.channel().equals(notification.getName())) {
					payloads.add(notification.getParameter());
				}
			}
			if (!payloads.isEmpty()) {
				other.notified(payloads);
			}
		}
	}

	private void sleep(long millis) {
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
		if (Thread.interrupted()) {
			running = false;
		}
	}

	@Override
	public void stop() {
		running = false;
		Thread listener = thread;
		if (listener != null) {
			listener.interrupt();
			try {
				listener.join(TimeUnit.SECONDS.toMillis(2));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return running;
	}

}

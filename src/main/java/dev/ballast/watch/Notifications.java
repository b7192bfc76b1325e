package dev.ballast.watch;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import dev.ballast.database.DatabaseRestored;
import dev.ballast.database.Notified;
import dev.ballast.database.Reachability;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Listens on one dedicated connection for the change notifications of every node, and
 * pokes the change follower with the services that changed; other modules' channels
 * ({@link Notified}) share the connection. A dropped connection is reopened with jittered
 * exponential backoff; after each (re)connect the follower catches up, so a notification
 * lost meanwhile only delays an event.
 */
@Component
class Notifications implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(Notifications.class);

	private static final long POLL_MILLIS = 500;

	/** A silent connection is checked this often; a dead one fails the check. */
	private static final long PING_NANOS = TimeUnit.SECONDS.toNanos(10);

	private static final long MAX_BACKOFF_MILLIS = 10_000;

	private final DataSource dataSource;

	private final ChangeFollower follower;

	private final Reachability reachability;

	private final List<Notified> others;

	private volatile boolean running;

	private volatile Thread thread;

	Notifications(FeedConnections connections, ChangeFollower follower, Reachability reachability,
			List<Notified> others) {
		this.dataSource = connections.dataSource();
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
			try (Connection connection = dataSource.getConnection()) {
				connection.setAutoCommit(true);
				try (Statement statement = connection.createStatement()) {
					statement.execute("LISTEN " + ChangeLog.CHANNEL);
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
			sleep(backoff / 2 + ThreadLocalRandom.current().nextLong(backoff));
			backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
		}
	}

	private void receive(Connection connection) throws SQLException {
		PGConnection postgres = connection.unwrap(PGConnection.class);
		long lastHeard = System.nanoTime();
		while (running) {
			PGNotification[] notifications = postgres.getNotifications((int) POLL_MILLIS);
			long now = System.nanoTime();
			if (notifications != null && notifications.length > 0) {
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
				lastHeard = now;
			}
			else if (now - lastHeard > PING_NANOS) {
				try (Statement statement = connection.createStatement()) {
					statement.execute("SELECT 1");
				}
				lastHeard = now;
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

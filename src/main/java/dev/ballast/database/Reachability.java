package dev.ballast.database;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Whether this node reaches its database. A probe checks every
 * {@link ProbeSettings#probeInterval()} on a connection of its own, outside the pool, so
 * that a pool busy with requests never reads as an outage. When the probe fails, the
 * connection gate closes (requests fail at once instead of waiting for the pool) and
 * {@link DatabaseLost} is published; when it succeeds again, the gate opens and
 * {@link DatabaseRestored} follows.
 */
@Component
public class Reachability implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(Reachability.class);

	private final DataSource dataSource;

	private final ProbeSettings settings;

	private final ApplicationEventPublisher events;

	private final Clock clock;

	/** The application's pool and any other pool a module asked to have gated. */
	private final List<GatedDataSource> gates = new CopyOnWriteArrayList<>();

	private volatile Instant lostAt;

	/** When the last outage this node saw ended; null if it saw none. */
	private volatile Instant restoredAt;

	private volatile boolean running;

	private Thread thread;

	private Connection probe;

	Reachability(DataSource dataSource, ProbeSettings settings, ApplicationEventPublisher events, Clock clock,
			MeterRegistry meters) throws SQLException {
		this.dataSource = dataSource;
		this.settings = settings;
		this.events = events;
		this.clock = clock;
		if (dataSource.isWrapperFor(GatedDataSource.class)) {
			gates.add(dataSource.unwrap(GatedDataSource.class));
		}
		Gauge.builder("ballast.database.reachable", this, reachability -> reachability.reachable() ? 1 : 0)
			.description("1 while this node reaches its database, 0 while it serves from memory")
			.register(meters);
	}

	/** Whether the last probe reached the database. */
	public boolean reachable() {
		return lostAt == null;
	}

	/**
	 * Whether no outage this node saw touched the time since {@code since}: an outage
	 * shorter than the probe interval can go unseen, but then every write in it failed
	 * and was retried, as writes in a seen one are.
	 */
	public boolean reachableSince(Instant since) {
		// lostAt first: restored() sets restoredAt before it clears lostAt.
		if (lostAt != null) {
			return false;
		}
		Instant restored = restoredAt;
		return restored == null || restored.isBefore(since);
	}

	/**
	 * Puts another pool to the same database behind the gate: it refuses connections at
	 * once while the database is unreachable, and its dead connections are replaced when
	 * it is back. Closing the returned data source closes the pool.
	 */
	public DataSource gate(DataSource pool) {
		GatedDataSource gate = new GatedDataSource(pool);
		Instant since = lostAt;
		if (since != null) {
			gate.shut(since);
		}
		gates.add(gate);
		return gate;
	}

	@Override
	public void start() {
		running = true;
		thread = Thread.ofPlatform().name("ballast-database-probe").daemon().start(this::probeUntilStopped);
	}

	private void probeUntilStopped() {
		while (running) {
			LockSupport.parkNanos(settings.probeInterval().toNanos());
			if (!running) {
				break;
			}
			boolean answered = probe();
			if (answered && lostAt != null) {
				restored();
			}
			else if (!answered && lostAt == null) {
				lost();
			}
		}
		closeProbe();
	}

	private boolean probe() {
		int seconds = (int) Math.max(1, settings.probeTimeout().toSeconds());
		try {
			if (probe == null || probe.isClosed()) {
				probe = connect(seconds);
			}
			if (probe.isValid(seconds)) {
				return true;
			}
		}
		catch (SQLException | RuntimeException ex) {
			log.debug("Database probe failed: {}", ex.getMessage());
		}
		closeProbe();
		return false;
	}

	/**
	 * A connection with the pool's URL and credentials but the probe's own timeouts;
	 * through the pool only when the pool has no URL of its own.
	 */
	private Connection connect(int timeoutSeconds) throws SQLException {
		HikariDataSource pool = dataSource.isWrapperFor(HikariDataSource.class)
				? dataSource.unwrap(HikariDataSource.class) : null;
		if (pool == null || pool.getJdbcUrl() == null) {
			return (gates.isEmpty() ? dataSource : gates.getFirst().getTargetDataSource()).getConnection();
		}
		Properties properties = new Properties();
		properties.putAll(pool.getDataSourceProperties());
		if (pool.getUsername() != null) {
			properties.setProperty("user", pool.getUsername());
		}
		if (pool.getPassword() != null) {
			properties.setProperty("password", pool.getPassword());
		}
		properties.setProperty("connectTimeout", Integer.toString(timeoutSeconds));
		properties.setProperty("socketTimeout", Integer.toString(timeoutSeconds + 1));
		properties.setProperty("ApplicationName", "ballast-probe");
		return DriverManager.getConnection(pool.getJdbcUrl(), properties);
	}

	private void lost() {
		Instant now = clock.instant();
		lostAt = now;
		gates.forEach(gate -> gate.shut(now));
		log.warn("The database is unreachable; refusing writes and serving reads from memory until it answers again");
		events.publishEvent(new DatabaseLost(now));
	}

	private void restored() {
		Duration outage = Duration.between(lostAt, clock.instant());
		discardPooledConnections();
		restoredAt = clock.instant();
		lostAt = null;
		gates.forEach(GatedDataSource::open);
		log.info("The database answers again after {}", outage);
		events.publishEvent(new DatabaseRestored(outage));
	}

	/**
	 * The pool's idle connections died with the server; nothing borrowed them while the
	 * gate was shut, so the pool has not noticed. Replacing them now spares the first
	 * requests a round of failed validations.
	 */
	private void discardPooledConnections() {
		for (GatedDataSource gate : gates) {
			if (gate.getTargetDataSource() instanceof HikariDataSource pool && pool.getHikariPoolMXBean() != null) {
				pool.getHikariPoolMXBean().softEvictConnections();
			}
		}
	}

	private void closeProbe() {
		if (probe != null) {
			try {
				probe.close();
			}
			catch (SQLException ex) {
				log.debug("Closing the probe connection failed: {}", ex.getMessage());
			}
			probe = null;
		}
	}

	@Override
	public void stop() {
		running = false;
		Thread prober = thread;
		if (prober != null) {
			LockSupport.unpark(prober);
			try {
				prober.join(TimeUnit.SECONDS.toMillis(settings.probeTimeout().toSeconds() + 2));
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

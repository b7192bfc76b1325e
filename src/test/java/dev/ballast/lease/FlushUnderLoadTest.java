package dev.ballast.lease;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceKey;
import dev.ballast.registry.ServiceName;
import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Heartbeats at full rate through many flushes and sweeps, with the real timers and a
 * thread flushing back to back besides: the sweep flushes on its own scheduler thread
 * while the flush timer and that thread do, yet no batch may fail (issue 13:
 * {@code deadlock detected}) and, with PostgreSQL up all along, no sweep may take the
 * registry for unwatching and extend every lease.
 */
@RegistryTest
// The default pause tolerance (2 s): a sweep slowed by this load is no outage, since this
// node keeps its vigil; only a wake-up of the node over 2 s late would be one. The fast
// timers must not outlive the class: their sweeps would judge other tests' leases.
@TestPropertySource(properties = { "ballast.lease.flush-interval=50ms", "ballast.lease.sweep-interval=300ms" })
@DirtiesContext
class FlushUnderLoadTest {

	private static final int SERVICES = 20;

	private static final int INSTANCES_PER_SERVICE = 1_000;

	/** Few, and resting between rounds: starved timers would look like an outage. */
	private static final int BEATERS = 2;

	private static final Duration REST = Duration.ofMillis(20);

	/** At least this long, for a dozen sweeps and over a hundred flushes. */
	private static final Duration LOAD = Duration.ofSeconds(6);

	/** At least this many rounds too, however slow a loaded machine makes them. */
	private static final int ROUNDS = 10;

	@Autowired
	Heartbeats heartbeats;

	@Autowired
	JdbcClient jdbc;

	@Autowired
	MeterRegistry meters;

	private final List<String> services = new ArrayList<>();

	/**
	 * Once the last renewals are written, and instance rows first in key order: the fast
	 * timers still run, and a flush locks rows in key order, while a service's cascading
	 * delete takes them in the table's order, so the two deadlocked once.
	 */
	@AfterEach
	void removeServices() {
		await().atMost(Duration.ofSeconds(30)).until(() -> meters.get("ballast.lease.pending").gauge().value() == 0.0);
		String[] names = services.toArray(String[]::new);
		jdbc.sql("""
				DELETE FROM instance WHERE (service, id) IN (
				  SELECT service, id FROM instance WHERE service = ANY (?) ORDER BY service, id FOR UPDATE)""")
			.param(names)
			.update();
		jdbc.sql("DELETE FROM service WHERE name = ANY (?)").param(names).update();
	}

	@Test
	void heartbeatsAtFullRateThroughManySweepsNeverFailAFlushNorExtendLeases() throws Exception {
		for (int s = 0; s < SERVICES; s++) {
			services.add(register(Names.service("load")));
		}
		double failuresBefore = count("ballast.lease.flush.failures");
		double extensionsBefore = count("ballast.lease.extensions");

		long beats = 0;
		Instant loadStart;
		try (ExecutorService pool = Executors.newFixedThreadPool(BEATERS + 1)) {
			// A first heartbeat reads the instance from the database; later ones are
			// answered from memory, at the rate that fills every flush with thousands of
			// renewals.
			List<Future<?>> warmers = new ArrayList<>();
			for (String service : services) {
				warmers.add(pool.submit(() -> beatEveryInstance(service)));
			}
			for (Future<?> warmer : warmers) {
				warmer.get(120, TimeUnit.SECONDS);
			}
			loadStart = Instant.now();
			List<Future<Long>> beaters = new ArrayList<>();
			long until = System.nanoTime() + LOAD.toNanos();
			for (int b = 0; b < BEATERS; b++) {
				List<String> own = services.subList(b * SERVICES / BEATERS, (b + 1) * SERVICES / BEATERS);
				beaters.add(pool.submit(() -> beatUntil(own, until)));
			}
			Future<Long> flusher = pool.submit(() -> flushUntil(until));
			for (Future<Long> beater : beaters) {
				beats += beater.get(LOAD.toSeconds() + 120, TimeUnit.SECONDS);
			}
			assertThat(flusher.get(LOAD.toSeconds() + 120, TimeUnit.SECONDS)).as("flushes by the extra flusher")
				.isPositive();
		}

		assertThat(beats).as("heartbeats").isGreaterThanOrEqualTo((long) ROUNDS * SERVICES * INSTANCES_PER_SERVICE);
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(notRenewedSince(services, loadStart))
				.as("instances whose renewals never reached the database")
				.isZero());
		assertThat(count("ballast.lease.flush.failures") - failuresBefore).as("failed flushes").isZero();
		assertThat(count("ballast.lease.extensions") - extensionsBefore).as("outage extensions").isZero();
	}

	private void beatEveryInstance(String service) {
		for (int i = 0; i < INSTANCES_PER_SERVICE; i++) {
			heartbeats.beat(ServiceName.of(service), InstanceId.of("i" + i));
		}
	}

	/**
	 * Renews every instance in each round, in a new random order each time as a fleet
	 * does, so every flush carries thousands of renewals that overlap the previous one's.
	 */
	private long beatUntil(List<String> services, long until) throws InterruptedException {
		List<InstanceKey> keys = new ArrayList<>();
		services.forEach(service -> {
			for (int i = 0; i < INSTANCES_PER_SERVICE; i++) {
				keys.add(new InstanceKey(service, "i" + i));
			}
		});
		long beats = 0;
		for (int round = 0; round < ROUNDS || System.nanoTime() < until; round++) {
			Collections.shuffle(keys);
			for (InstanceKey key : keys) {
				heartbeats.beat(ServiceName.of(key.service()), InstanceId.of(key.id()));
			}
			beats += keys.size();
			Thread.sleep(REST);
		}
		return beats;
	}

	/**
	 * A third writer beside the flush timer and the sweep, flushing again and again as a
	 * shutdown flush or a slow timer catching up can: every flush, from any thread, must
	 * wait for the one running, or two batches over the same rows deadlock.
	 */
	private long flushUntil(long until) throws InterruptedException {
		long flushes = 0;
		while (System.nanoTime() < until) {
			heartbeats.flush();
			flushes++;
			// Resting as the beaters do: back to back, its flushes would load PostgreSQL
			// so much that on a busy machine the sweep outlived its pause tolerance.
			Thread.sleep(REST);
		}
		return flushes;
	}

	/**
	 * Written directly: registering this many instances one request at a time is slow.
	 */
	private String register(String service) {
		jdbc.sql("INSERT INTO service (name) VALUES (?)").param(service).update();
		jdbc.sql(
				"""
						INSERT INTO instance (service, id, address, port, weight, effective_weight, nominal_weight, lease_ttl_seconds,
						                      last_renewed_at, registered_at, revision)
						SELECT ?, 'i' || n, '10.0.0.1', 80, 100, 100, 100, 30, now(), now(), 1
						  FROM generate_series(0, ? - 1) AS n""")
			.params(service, INSTANCES_PER_SERVICE)
			.update();
		return service;
	}

	private long notRenewedSince(List<String> services, Instant since) {
		return jdbc.sql("SELECT count(*) FROM instance WHERE service = ANY (?) AND last_renewed_at < ?")
			.params(services.toArray(String[]::new), Timestamp.from(since))
			.query(Long.class)
			.single();
	}

	private double count(String name) {
		return meters.find(name).counters().stream().mapToDouble(counter -> counter.count()).sum();
	}

}

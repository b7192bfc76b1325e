package dev.ballast.lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import dev.ballast.database.NodeFacts;
import dev.ballast.database.ThisNode;
import dev.ballast.registry.ChangeLog;
import dev.ballast.registry.Health;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceKey;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LeaseStatus;
import dev.ballast.registry.Leases;
import dev.ballast.registry.LoggedChange;
import dev.ballast.registry.ServiceName;
import dev.ballast.web.NotFoundException;
import io.micrometer.core.instrument.Counter;
import jakarta.annotation.PreDestroy;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * The heartbeat path. A heartbeat is absorbed in memory and answered from a cache of each
 * instance's mode and effective weight; it never waits for a disk write. {@link #flush()}
 * writes all absorbed renewals in a few batched statements, whose answers refresh the
 * cache with what other nodes changed. Only a heartbeat from an instance whose lease ran
 * out touches the database at once, to bring it back.
 * <p>
 * Flushes run one at a time, and not during this node's sweep ({@link #exclusively}): a
 * renewal stays buffered until written, so two flushes at once would write overlapping
 * rows and could deadlock each other, and a flush during the sweep's transaction would
 * wait on the row locks of its lease extension and expiries.
 */
@Component
class Heartbeats {

	private static final Logger log = LoggerFactory.getLogger(Heartbeats.class);

	/**
	 * Longer than the sweep's 30 s transaction timeout plus a flush, so only a writer
	 * that is stuck makes another give up.
	 */
	private static final Duration WRITER_WAIT = Duration.ofSeconds(45);

	/**
	 * Fair: flushes follow each other closely under load, and a barging lock let them
	 * starve the waiting sweep for 24 s in a test, which then counted as an outage.
	 */
	private final ReentrantLock writer = new ReentrantLock(true);

	/**
	 * Renewals per statement: one statement of 41,784 outlived the 5 s statement timeout
	 * at 100,000 instances, and then the whole batch waited for the next flush.
	 */
	static final int FLUSH_BATCH = 5_000;

	private final Map<InstanceKey, Instant> pending = new ConcurrentHashMap<>();

	private final Map<InstanceKey, LeaseStatus> statuses = new ConcurrentHashMap<>();

	private final NodeFacts nodes;

	private final Leases leases;

	private final LeaseRevival revival;

	private final Clock clock;

	private final Counter flushFailures;

	private final Counter beats;

	private final String node;

	Heartbeats(NodeFacts nodes, Leases leases, LeaseRevival revival, Clock clock, MeterRegistry meters, ThisNode node,
			ChangeLog changeLog) {
		// Keeps the cache exact for changes made on this node, once they commit.
		changeLog.onCommitted((history, changes) -> changes.forEach(this::cache));
		this.nodes = nodes;
		this.leases = leases;
		this.node = node.id();
		this.revival = revival;
		this.clock = clock;
		this.flushFailures = Counter.builder("ballast.lease.flush.failures")
			.description("Heartbeat batches that could not be written; they are retried")
			.register(meters);
		this.beats = Counter.builder("ballast.heartbeats").description("Heartbeats received").register(meters);
		meters.gauge("ballast.lease.pending", pending, Map::size);
	}

	HeartbeatView beat(ServiceName service, InstanceId id) {
		beats.increment();
		Instant now = clock.instant();
		InstanceKey key = new InstanceKey(service.value(), id.value());
		LeaseStatus status = statuses.get(key);
		if (status == null) {
			status = leases.status(key).orElseThrow(() -> unknown(service, id));
			statuses.put(key, status);
		}
		if (status.health() == Health.CRITICAL) {
			status = revive(key, now).orElseThrow(() -> unknown(service, id));
		}
		return absorb(key, status, now);
	}

	/**
	 * A heartbeat answered from memory alone, for the path that answers before the filter
	 * chain: only for an instance whose lease is current by what this node knows, and
	 * only once {@code admitted} says the caller may renew it.
	 * @return the answer, or null when the heartbeat needs the full path (an unknown or
	 * expired instance, or a caller not admitted)
	 */
	HeartbeatView beatFromMemory(InstanceKey key, BooleanSupplier admitted) {
		LeaseStatus status = statuses.get(key);
		if (status == null || status.health() != Health.PASSING || !admitted.getAsBoolean()) {
			return null;
		}
		beats.increment();
		return absorb(key, status, clock.instant());
	}

	private HeartbeatView absorb(InstanceKey key, LeaseStatus status, Instant now) {
		pending.merge(key, now, Heartbeats::later);
		return new HeartbeatView(status.mode(), status.effectiveWeight(), now.plus(status.ttl().duration()));
	}

	/**
	 * Writes every absorbed renewal, {@link #FLUSH_BATCH} to a statement. An entry leaves
	 * the buffer only once written, and only if no newer heartbeat replaced it meanwhile;
	 * a failed batch and those after it stay for the next flush.
	 * @return whether every renewal absorbed before the call is written
	 */
	boolean flush() {
		if (!acquireWriter()) {
			flushFailures.increment();
			log.warn("Could not write {} lease renewals: another lease write held this node for over {}",
					pending.size(), WRITER_WAIT);
			return false;
		}
		try {
			return write();
		}
		finally {
			writer.unlock();
		}
	}

	/**
	 * Runs {@code work} while no flush of this node runs; {@code work} may flush itself.
	 * @return false, without running it, when another writer held on for too long
	 */
	boolean exclusively(Runnable work) {
		if (!acquireWriter()) {
			return false;
		}
		try {
			work.run();
			return true;
		}
		finally {
			writer.unlock();
		}
	}

	private boolean acquireWriter() {
		try {
			return writer.tryLock(WRITER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Writes the renewals, then says through when this node has written them (see
	 * {@link LeaseSweeper}): read before the buffer is, so every renewal absorbed before
	 * it is among those written.
	 */
	private boolean write() {
		Instant through = clock.instant();
		List<Map.Entry<InstanceKey, Instant>> absorbed = List.copyOf(pending.entrySet());
		for (int from = 0; from < absorbed.size(); from += FLUSH_BATCH) {
			List<Map.Entry<InstanceKey, Instant>> slice = absorbed.subList(from,
					Math.min(from + FLUSH_BATCH, absorbed.size()));
			Map<InstanceKey, Instant> batch = new HashMap<>(slice.size() * 2);
			slice.forEach(entry -> batch.put(entry.getKey(), entry.getValue()));
			if (!write(batch)) {
				return false;
			}
		}
		try {
			nodes.wrote(node, through);
			return true;
		}
		catch (DataAccessException ex) {
			flushFailures.increment();
			log.warn("Could not record that this node's lease renewals are written: {}", ex.getMessage());
			return false;
		}
	}

	private boolean write(Map<InstanceKey, Instant> batch) {
		Map<InstanceKey, LeaseStatus> renewed;
		try {
			renewed = leases.renew(batch);
		}
		catch (DataAccessException ex) {
			flushFailures.increment();
			log.warn("Could not write {} lease renewals; keeping them for the next flush: {}", batch.size(),
					ex.getMessage());
			return false;
		}
		batch.forEach(pending::remove);
		batch.keySet().forEach(key -> {
			LeaseStatus status = renewed.get(key);
			if (status == null) {
				statuses.remove(key);
			}
			else if (status.health() == Health.CRITICAL) {
				reviveAfterFlush(key, batch.get(key));
			}
			else {
				statuses.put(key, status);
			}
		});
		return true;
	}

	/**
	 * The instance expired on another node while its renewal sat here. Its renewal is
	 * written already, so a failure here only leaves it CRITICAL until its next
	 * heartbeat.
	 */
	private void reviveAfterFlush(InstanceKey key, Instant at) {
		try {
			revive(key, at);
		}
		catch (DataAccessException ex) {
			statuses.remove(key);
			log.warn("Could not bring {} of service {} back after its renewal: {}", key.id(), key.service(),
					ex.getMessage());
		}
	}

	/**
	 * A node that stops cleanly writes what it absorbed, and then no longer holds back
	 * expiries as a silent node; only a killed node loses a batch.
	 */
	@PreDestroy
	void flushOnShutdown() {
		if (!flush()) {
			return;
		}
		try {
			nodes.stopsWriting(node);
		}
		catch (DataAccessException ex) {
			log.warn("Could not say that this node stops writing lease renewals: {}", ex.getMessage());
		}
	}

	private void cache(LoggedChange change) {
		if (change.instanceId() == null) {
			return;
		}
		InstanceKey key = new InstanceKey(change.service(), change.instanceId());
		InstanceView instance = change.instance();
		if (instance == null) {
			statuses.remove(key);
			pending.remove(key);
		}
		else {
			statuses.put(key, new LeaseStatus(instance.mode(), instance.effectiveWeight(), instance.leaseTtlSeconds(),
					instance.health()));
		}
	}

	private Optional<LeaseStatus> revive(InstanceKey key, Instant at) {
		Optional<LeaseStatus> status = revival.revive(key, at);
		status.ifPresentOrElse(s -> statuses.put(key, s), () -> statuses.remove(key));
		return status;
	}

	private static Instant later(Instant a, Instant b) {
		return a.isAfter(b) ? a : b;
	}

	private static NotFoundException unknown(ServiceName service, InstanceId id) {
		return new NotFoundException(
				"instance %s of service %s is not registered; register it again with PUT".formatted(id, service));
	}

}

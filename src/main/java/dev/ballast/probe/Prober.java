package dev.ballast.probe;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckSettings;
import dev.ballast.registry.CheckTargets;
import dev.ballast.registry.Checks;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.StoredCheck;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Runs this node's share of the checks. Each membership beat ({@link #refresh}) reads the
 * checks and the live nodes, keeps the checks this node owns ({@link ProbeOwners}) and
 * drops the others. A check just gained is first probed after the handover wait, so the
 * node that had it has stopped; a node that cannot say it is alive stops probing once its
 * last beat is older than the handover wait, before another node may start.
 * <p>
 * Probes run on virtual threads, on each check's own grid ({@link ProbeOwners#phase});
 * one timer thread only starts them. A check has at most one probe queued or running: a
 * probe due while the last one still waits or runs is skipped
 * ({@code ballast.checks.shed}, and the check is logged as behind). Slots are shared
 * among services ({@link ProbeSlots}), each probe is cut at its timeout from outside
 * ({@link Deadline}), and a check that is deleted or replaced is cut at once, queued or
 * in flight. So a slow target delays nothing but its own check, and its service's share
 * of the slots at most. Lateness (start after the due time) is recorded in
 * {@code ballast.checks.lateness}.
 */
@Component
class Prober {

	private static final Logger log = LoggerFactory.getLogger(Prober.class);

	/** How often the prober renews the lease of an instance whose checks keep it. */
	private static final Duration LEASE_RENEWAL = CheckDefinition.KEPT_LEASE.duration().dividedBy(4);

	private final Checks checks;

	private final ProberMembership membership;

	private final ProbeVerdicts verdicts;

	private final CheckSettings settings;

	private final Clock clock;

	private final Probes probes;

	private final ProbeSlots slots;

	private final ScheduledExecutorService timer = Executors
		.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("ballast-prober").daemon().factory());

	private final Map<String, OwnedCheck> owned = new ConcurrentHashMap<>();

	private final Timer lateness;

	private final Counter shed;

	/**
	 * What the last beats read of each service's checks; only {@link #refresh} uses it.
	 */
	private final Map<ServiceName, ServiceChecks> read = new HashMap<>();

	/** The live nodes the owners were last computed for. */
	private List<String> owners = List.of();

	/**
	 * System.nanoTime() of the last beat that reached the database; 0 before the first.
	 */
	private volatile long lastBeat;

	Prober(Checks checks, ProberMembership membership, ProbeVerdicts verdicts, CheckSettings settings,
			CheckTargets targets, Clock clock, MeterRegistry meters) {
		this.checks = checks;
		this.membership = membership;
		this.verdicts = verdicts;
		this.settings = settings;
		this.clock = clock;
		this.probes = new Probes(targets);
		this.slots = new ProbeSlots(settings.maxConcurrent(), settings.maxConcurrentPerService());
		this.lateness = Timer.builder("ballast.checks.lateness")
			.description("How late probes start after their due time")
			.publishPercentiles(0.5, 0.99)
			.register(meters);
		this.shed = Counter.builder("ballast.checks.shed")
			.description("Probes not run: due while the check's last probe still waited for a slot or ran, "
					+ "or not started by the check's next due time")
			.register(meters);
		meters.gauge("ballast.checks.owned", owned, Map::size);
		meters.gauge("ballast.checks.running", slots, ProbeSlots::running);
		meters.gauge("ballast.checks.waiting", slots, ProbeSlots::waiting);
		meters.gauge("ballast.checks.unstored", owned,
				mine -> mine.values().stream().filter(check -> check.state.unstored()).count());
	}

	/**
	 * One membership beat: who is alive, which checks are this node's. Only the services
	 * whose checks changed ({@link Checks#fingerprints}) are read again, and owners are
	 * computed again only for them, or for all when the live nodes changed.
	 */
	synchronized void refresh() {
		// Taken before the beat: what it reads may already be older than its end.
		long started = System.nanoTime();
		List<String> nodes = membership.beat();
		Map<ServiceName, String> fingerprints = checks.fingerprints();
		Set<ServiceName> changed = new HashSet<>();
		fingerprints.forEach((service, fingerprint) -> {
			ServiceChecks known = read.get(service);
			if (known == null || !known.fingerprint.equals(fingerprint)) {
				changed.add(service);
			}
		});
		Map<ServiceName, List<StoredCheck>> fresh = changed.isEmpty() ? Map.of()
				: checks.of(changed).stream().collect(Collectors.groupingBy(StoredCheck::service));
		lastBeat = started;
		read.keySet().retainAll(fingerprints.keySet());
		// The fingerprint was read first: checks newer than it are read once more next
		// time, never missed.
		changed.forEach(service -> read.put(service,
				new ServiceChecks(fingerprints.get(service), fresh.getOrDefault(service, List.of()))));
		boolean reassign = !nodes.equals(owners);
		owners = nodes;
		Set<String> mine = new HashSet<>();
		Instant now = clock.instant();
		for (ServiceName service : reassign ? read.keySet() : changed) {
			for (StoredCheck check : read.get(service).checks) {
				if (membership.node().equals(ProbeOwners.owner(check.key(), nodes))) {
					mine.add(check.key());
					own(check, now);
				}
			}
		}
		owned.entrySet().removeIf(entry -> {
			ServiceName service = entry.getValue().check.service();
			boolean judged = reassign || changed.contains(service) || !read.containsKey(service);
			if (!judged || mine.contains(entry.getKey())) {
				return false;
			}
			entry.getValue().stop();
			return true;
		});
		renewLeases(now);
	}

	private void own(StoredCheck check, Instant now) {
		OwnedCheck current = owned.get(check.key());
		// A registration that kept the definition still started the check afresh
		// (passing): the stored status no longer being what this node stored says so. (A
		// verdict this node could not store yet is not a difference: it is asserted
		// again.)
		if (current != null && current.check.definition().equals(check.definition())
				&& current.check.keepsLease() == check.keepsLease() && current.state.stored() == check.status()) {
			return;
		}
		if (current != null) {
			current.stop();
		}
		OwnedCheck gained = new OwnedCheck(check, current == null ? now.plus(settings.handover()) : now);
		owned.put(check.key(), gained);
		schedule(gained, gained.startAt);
	}

	/** The checks this node probes now, by key. */
	Set<String> owned() {
		return Set.copyOf(owned.keySet());
	}

	private void renewLeases(Instant now) {
		for (OwnedCheck check : owned.values()) {
			if (check.check.keepsLease() && check.check.position() == 0 && !now.isBefore(check.renewAt)) {
				check.renewAt = now.plus(LEASE_RENEWAL);
				verdicts.renewLease(check.check);
			}
		}
	}

	private void schedule(OwnedCheck check, Instant earliest) {
		Duration interval = check.check.definition().interval();
		long offset = (long) (ProbeOwners.phase(check.check.key()) * interval.toMillis());
		long earliestMillis = earliest.toEpochMilli();
		long due = Math.floorDiv(earliestMillis - offset, interval.toMillis()) * interval.toMillis() + offset;
		if (due < earliestMillis) {
			due += interval.toMillis();
		}
		long dueAt = due;
		check.next = timer.schedule(() -> start(check, dueAt), Math.max(0, due - clock.millis()),
				TimeUnit.MILLISECONDS);
	}

	/**
	 * On the timer thread, at a probe's due time: queues it for a slot, unless the
	 * check's last probe still waits or runs (a check never has two).
	 */
	private void start(OwnedCheck check, long dueAt) {
		if (check.stopped) {
			return;
		}
		schedule(check, Instant.ofEpochMilli(dueAt + 1));
		if (!check.busy.compareAndSet(false, true)) {
			behind(check);
			return;
		}
		long expiresIn = dueAt + check.check.definition().interval().toMillis() - clock.millis();
		check.ticket = slots.submit(check.check.service().value(),
				System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(expiresIn), new ProbeSlots.Task() {

					@Override
					public String name() {
						return "probe " + check.check.key();
					}

					@Override
					public void run(ProbeSlots.Slot slot) {
						probe(check, dueAt, slot);
					}

					@Override
					public void shed() {
						check.busy.set(false);
						behind(check);
					}

				});
		if (check.stopped) {
			check.stop();
		}
	}

	private void probe(OwnedCheck check, long dueAt, ProbeSlots.Slot slot) {
		try {
			check.ticket = null;
			long late = Math.max(0, clock.millis() - dueAt);
			lateness.record(late, TimeUnit.MILLISECONDS);
			check.started(late);
			if (check.stopped || !current()) {
				return;
			}
			ProbeOutcome outcome;
			try (Deadline deadline = probes.deadline(check.check.definition().timeout())) {
				check.inFlight = deadline;
				if (check.stopped) {
					deadline.cancel();
				}
				outcome = probes.run(check.check.definition(), check.check.instancePort(), deadline);
			}
			finally {
				check.inFlight = null;
			}
			// The slot is for probing: the verdict's write waits for the database, not
			// for a target, and holds no slot.
			slot.release();
			// A verdict reached after this node lost the check, or its membership, is not
			// its to give.
			if (!check.stopped && current()) {
				verdicts.judge(check.state, outcome);
			}
		}
		catch (RuntimeException ex) {
			log.warn("Check {} could not be judged: {}", check.check.key(), ex.toString());
		}
		finally {
			check.busy.set(false);
		}
	}

	/** A probe of {@code check} was skipped; said once until it is on time again. */
	private void behind(OwnedCheck check) {
		shed.increment();
		if (check.skipped(clock.instant())) {
			log.warn(
					"Check {} is behind: a probe came due while its last one still waited for a slot or ran "
							+ "({} probes running, {} waiting on this node); it is skipped, not queued",
					check.check.key(), slots.running(), slots.waiting());
		}
	}

	/**
	 * Whether this node's last beat is recent enough that no other node has its checks.
	 */
	private boolean current() {
		long beat = lastBeat;
		return beat != 0 && System.nanoTime() - beat < settings.handover().toNanos();
	}

	@PreDestroy
	void stop() {
		timer.shutdownNow();
		owned.values().forEach(OwnedCheck::stop);
		probes.close();
		try {
			membership.leave();
		}
		catch (RuntimeException ex) {
			log.debug("Could not leave the probers: {}", ex.toString());
		}
	}

	/** A service's checks as last read, and the fingerprint read just before them. */
	private record ServiceChecks(String fingerprint, List<StoredCheck> checks) {
	}

}

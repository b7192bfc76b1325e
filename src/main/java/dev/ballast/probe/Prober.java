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
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.ballast.instance.CheckDefinition;
import dev.ballast.instance.CheckKind;
import dev.ballast.instance.CheckSettings;
import dev.ballast.instance.Checks;
import dev.ballast.instance.ServiceName;
import dev.ballast.instance.StoredCheck;
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
 * Probes run on virtual threads, at most {@code max-concurrent} at once, on each check's
 * own grid ({@link ProbeOwners#phase}); one timer thread only starts them, so a slow
 * target delays nothing but its own check. Lateness (start after the due time) is
 * recorded in {@code ballast.checks.lateness}.
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

	private final Map<CheckKind, Probe> probes;

	private final Semaphore running;

	private final ScheduledExecutorService timer = Executors
		.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("ballast-prober").daemon().factory());

	private final Map<String, Owned> owned = new ConcurrentHashMap<>();

	private final Timer lateness;

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

	Prober(Checks checks, ProberMembership membership, ProbeVerdicts verdicts, CheckSettings settings, Clock clock,
			MeterRegistry meters) {
		this.checks = checks;
		this.membership = membership;
		this.verdicts = verdicts;
		this.settings = settings;
		this.clock = clock;
		this.probes = Map.of(CheckKind.HTTP, new HttpProbe(), CheckKind.TCP, new TcpProbe(), CheckKind.GRPC,
				new GrpcProbe());
		this.running = new Semaphore(settings.maxConcurrent());
		this.lateness = Timer.builder("ballast.checks.lateness")
			.description("How late probes start after their due time")
			.publishPercentiles(0.5, 0.99)
			.register(meters);
		meters.gauge("ballast.checks.owned", owned, Map::size);
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
		Owned current = owned.get(check.key());
		// A registration that kept the definition still started the check afresh
		// (passing): the stored status no longer being this node's verdict says so.
		if (current != null && current.check.definition().equals(check.definition())
				&& current.check.keepsLease() == check.keepsLease() && current.state.status() == check.status()) {
			return;
		}
		if (current != null) {
			current.stop();
		}
		Owned gained = new Owned(check, current == null ? now.plus(settings.handover()) : now);
		owned.put(check.key(), gained);
		schedule(gained, gained.startAt);
	}

	/** The checks this node probes now, by key. */
	Set<String> owned() {
		return Set.copyOf(owned.keySet());
	}

	private void renewLeases(Instant now) {
		for (Owned check : owned.values()) {
			if (check.check.keepsLease() && check.check.position() == 0 && !now.isBefore(check.renewAt)) {
				check.renewAt = now.plus(LEASE_RENEWAL);
				verdicts.renewLease(check.check);
			}
		}
	}

	private void schedule(Owned check, Instant earliest) {
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

	private void start(Owned check, long dueAt) {
		if (check.stopped) {
			return;
		}
		Thread.ofVirtual().name("probe " + check.check.key()).start(() -> probe(check, dueAt));
		schedule(check, Instant.ofEpochMilli(dueAt + 1));
	}

	private void probe(Owned check, long dueAt) {
		try {
			running.acquire();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return;
		}
		try {
			lateness.record(Math.max(0, clock.millis() - dueAt), TimeUnit.MILLISECONDS);
			if (!current()) {
				return;
			}
			ProbeOutcome outcome = probes.get(check.check.definition().kind()).run(check.check.definition());
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
			running.release();
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
		owned.values().forEach(Owned::stop);
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

	/** A check this node probes. */
	private static final class Owned {

		private final StoredCheck check;

		private final Instant startAt;

		private final ProbeVerdicts.State state;

		private volatile boolean stopped;

		private volatile ScheduledFuture<?> next;

		private Instant renewAt = Instant.MIN;

		Owned(StoredCheck check, Instant startAt) {
			this.check = check;
			this.startAt = startAt;
			this.state = new ProbeVerdicts.State(check);
		}

		void stop() {
			stopped = true;
			ScheduledFuture<?> scheduled = next;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
		}

	}

}

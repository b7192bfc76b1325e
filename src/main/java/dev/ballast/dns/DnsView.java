package dev.ballast.dns;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.ballast.instance.AppliedStates;
import dev.ballast.instance.Answer;
import dev.ballast.instance.InstanceList;
import dev.ballast.instance.InstanceQueries;
import dev.ballast.instance.ServiceName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Name;

/**
 * What the responder answers from: the services asked for, as this node last read them.
 * One thread reads every service asked for within {@link DnsSettings#idleService()}, in
 * one query every {@link DnsSettings#refresh()} (and at once when a new name is asked),
 * so a DNS query never waits for the database; a name asked for the first time waits for
 * that read, at most {@link DnsSettings#firstAnswerTimeout()}. When this node follows a
 * service's change log (someone watches it here) and has applied a newer state, that one
 * is answered.
 *
 * <p>
 * While the database is unreachable the reads answer from the node's memory (the instance
 * module's last known state), so the answers keep coming, as stale as the HTTP reads'; a
 * name never read before cannot be answered then.
 */
final class DnsView {

	private static final Logger log = LoggerFactory.getLogger(DnsView.class);

	private final InstanceQueries queries;

	private final AppliedStates applied;

	private final DnsSettings settings;

	private final Name domain;

	private final Map<String, Tracked> tracked = new ConcurrentHashMap<>();

	private final Semaphore wake = new Semaphore(0);

	private volatile boolean running;

	private Thread thread;

	DnsView(InstanceQueries queries, AppliedStates applied, DnsSettings settings, Name domain) {
		this.queries = queries;
		this.applied = applied;
		this.settings = settings;
		this.domain = domain;
	}

	/** What is known of a service, or, for a name not read yet, when it will be. */
	sealed interface Lookup {

	}

	/** The service's records; null when it is not registered. */
	record Known(ServiceRecords records) implements Lookup {

	}

	/** The first read of the service is under way. */
	record Pending(CompletableFuture<Void> read) implements Lookup {

	}

	/** This node reads as many names as it may; the name cannot be answered. */
	record Full() implements Lookup {

	}

	Lookup lookup(ServiceName service) {
		Tracked entry = tracked.get(service.value());
		if (entry == null) {
			if (tracked.size() >= settings.maxServices()) {
				return new Full();
			}
			entry = tracked.computeIfAbsent(service.value(), name -> new Tracked());
			wake.release();
		}
		entry.askedAt = System.nanoTime();
		ServiceRecords records = entry.records;
		if (!entry.read.isDone()) {
			return new Pending(entry.read);
		}
		InstanceList newer = applied.applied(service)
			.filter(state -> records == null || state.revision() > records.revision())
			.orElse(null);
		if (newer != null) {
			ServiceRecords rendered = ServiceRecords.of(newer, domain);
			entry.records = rendered;
			return new Known(rendered);
		}
		return new Known(records);
	}

	void start() {
		running = true;
		thread = Thread.ofPlatform().name("ballast-dns-read").daemon().start(this::run);
	}

	void stop() throws InterruptedException {
		running = false;
		wake.release();
		thread.join(Duration.ofSeconds(10));
	}

	private void run() {
		while (running) {
			try {
				wake.tryAcquire(settings.refresh().toMillis(), TimeUnit.MILLISECONDS);
				wake.drainPermits();
				read();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				// The database is unreachable and a name was never read, or it failed
				// otherwise: what was read stays, and the next round tries again.
				log.debug("DNS view not read: {}", ex.toString());
			}
		}
	}

	private void read() {
		long now = System.nanoTime();
		long idle = settings.idleService().toNanos();
		tracked.values().removeIf(entry -> {
			boolean forgotten = now - entry.askedAt > idle;
			if (forgotten) {
				entry.read.complete(null);
			}
			return forgotten;
		});
		if (tracked.isEmpty()) {
			return;
		}
		Set<ServiceName> names = tracked.keySet().stream().map(ServiceName::of).collect(Collectors.toSet());
		Answer<java.util.List<InstanceList>> answer = queries.lists(names);
		Map<String, InstanceList> read = answer.value()
			.stream()
			.collect(Collectors.toMap(InstanceList::service, list -> list));
		tracked.forEach((name, entry) -> {
			InstanceList list = read.get(name);
			ServiceRecords held = entry.records;
			if (list == null) {
				entry.records = null;
			}
			else if (held == null || held.revision() != list.revision()) {
				entry.records = ServiceRecords.of(list, domain);
			}
			entry.read.complete(null);
		});
	}

	/** One name asked for; written by the reading thread, read by the answering ones. */
	private static final class Tracked {

		private final CompletableFuture<Void> read = new CompletableFuture<>();

		private volatile ServiceRecords records;

		private volatile long askedAt = System.nanoTime();

	}

}

package dev.ballast.probe;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A node's probe slots ({@code ballast.checks.max-concurrent}), shared fairly among the
 * services whose checks wait for one. A service holds at most
 * {@code max-concurrent-per-service} at once, and a slot that frees goes to the waiting
 * service that holds the fewest (the one served longest ago among equals), its oldest
 * probe first. So one registrant's checks against targets that hang or trickle, each
 * holding its slot for its whole timeout, take at most their service's share, and a probe
 * of another service waits at most for one slot to free, not for a queue of theirs.
 * <p>
 * A probe that has not started by its expiry (its check's next due time) is not started
 * late: it is shed ({@link Task#shed}), and its check is probed at its next due time
 * instead. Lateness is so bounded by a check's interval, and the queue by the number of
 * checks (the prober queues at most one probe per check).
 */
final class ProbeSlots {

	private final int perService;

	/** Guarded by this, as everything below. */
	private int free;

	private final Map<String, Service> services = new HashMap<>();

	/**
	 * Services with a probe waiting and room under their cap: fewest held first, then the
	 * one served longest ago (then by name: no two may compare equal in a set).
	 */
	private final TreeSet<Service> ready = new TreeSet<>(Comparator.comparingInt((Service service) -> service.held)
		.thenComparingLong(service -> service.served)
		.thenComparing(service -> service.name));

	private long turns;

	private int waiting;

	/**
	 * @param total slots on the node
	 * @param perService the most one service holds at once
	 */
	ProbeSlots(int total, int perService) {
		this.free = total;
		this.perService = Math.min(perService, total);
	}

	/** Work for a slot. */
	interface Task {

		/** The name of the thread it runs on, for the logs. */
		String name();

		/** Runs on a virtual thread of its own, holding {@code slot}. */
		void run(Slot slot);

		/** Called instead of {@link #run} when it could not start before it expired. */
		void shed();

	}

	/**
	 * Queues {@code task} for a slot of {@code service}'s share.
	 * @param expiresAt {@code System.nanoTime()} after which it is shed rather than run
	 * @return the ticket, to {@link Ticket#cancel} it while it waits
	 */
	Ticket submit(String service, long expiresAt, Task task) {
		Ticket ticket;
		List<Ticket> starting = new ArrayList<>();
		List<Ticket> shed = new ArrayList<>();
		synchronized (this) {
			Service owner = services.computeIfAbsent(service, Service::new);
			ticket = new Ticket(owner, expiresAt, task);
			ready.remove(owner);
			owner.waiting.add(ticket);
			waiting++;
			if (owner.held < perService) {
				ready.add(owner);
			}
			dispatch(starting, shed);
		}
		start(starting, shed);
		return ticket;
	}

	/** Probes holding a slot now. */
	synchronized int running() {
		return services.values().stream().mapToInt(service -> service.held).sum();
	}

	/** Probes waiting for a slot now. */
	synchronized int waiting() {
		return waiting;
	}

	/** Hands free slots out; the tickets to start and to shed are run after the lock. */
	private void dispatch(List<Ticket> starting, List<Ticket> shed) {
		long now = System.nanoTime();
		while (free > 0 && !ready.isEmpty()) {
			Service service = ready.pollFirst();
			Ticket next = service.waiting.poll();
			waiting--;
			if (now - next.expiresAt > 0) {
				shed.add(next);
			}
			else {
				free--;
				service.held++;
				service.served = ++turns;
				starting.add(next);
			}
			settle(service);
		}
	}

	/** Puts a service back among the ready ones, or forgets it when it has nothing. */
	private void settle(Service service) {
		if (!service.waiting.isEmpty() && service.held < perService) {
			ready.add(service);
		}
		else if (service.waiting.isEmpty() && service.held == 0) {
			services.remove(service.name);
		}
	}

	private void release(Service service) {
		List<Ticket> starting = new ArrayList<>();
		List<Ticket> shed = new ArrayList<>();
		synchronized (this) {
			ready.remove(service);
			service.held--;
			free++;
			settle(service);
			dispatch(starting, shed);
		}
		start(starting, shed);
	}

	private void start(List<Ticket> starting, List<Ticket> shed) {
		shed.forEach(ticket -> ticket.task.shed());
		for (Ticket ticket : starting) {
			Slot slot = new Slot(ticket.service);
			Thread.ofVirtual().name(ticket.task.name()).start(() -> {
				try {
					ticket.task.run(slot);
				}
				finally {
					slot.release();
				}
			});
		}
	}

	/** A service's place in the sharing. */
	private static final class Service {

		private final String name;

		private final ArrayDeque<Ticket> waiting = new ArrayDeque<>();

		private int held;

		private long served;

		Service(String name) {
			this.name = name;
		}

	}

	/** A probe queued for a slot. */
	final class Ticket {

		private final Service service;

		private final long expiresAt;

		private final Task task;

		private Ticket(Service service, long expiresAt, Task task) {
			this.service = service;
			this.expiresAt = expiresAt;
			this.task = task;
		}

		/**
		 * Takes it out of the queue if it still waits (its check was deleted or
		 * replaced); a started one is cut by its deadline instead.
		 * @return whether it was still waiting
		 */
		boolean cancel() {
			synchronized (ProbeSlots.this) {
				if (!service.waiting.remove(this)) {
					return false;
				}
				waiting--;
				ready.remove(service);
				settle(service);
				return true;
			}
		}

	}

	/** A slot held by a running probe; released once, when the probing is done. */
	final class Slot {

		private final Service service;

		private final AtomicBoolean released = new AtomicBoolean();

		private Slot(Service service) {
			this.service = service;
		}

		void release() {
			if (released.compareAndSet(false, true)) {
				ProbeSlots.this.release(service);
			}
		}

	}

}

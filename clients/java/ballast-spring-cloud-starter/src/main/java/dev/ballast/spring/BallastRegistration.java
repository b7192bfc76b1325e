package dev.ballast.spring;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.ballast.client.Heartbeat;
import dev.ballast.client.InstanceRegistration;
import dev.ballast.client.Registry;
import dev.ballast.client.RegistryException;
import dev.ballast.client.WatchedInstance;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

/**
 * The application's own registration: registered once its web server listens, kept alive
 * by heartbeats, and on shutdown drained, waited for and deregistered before the web
 * server stops taking calls.
 *
 * <p>
 * Start: the first registration is tried at once; a refused token (or a registration
 * Ballast refuses as invalid) stops the start-up with the property to fix, and an
 * unreachable registry does not: the application starts, the registration is retried (1 s
 * doubling to 10 s) and the health indicator says so meanwhile. Heartbeats follow every
 * {@code ballast.instance.heartbeat-interval}, sooner after a failed one; when Ballast no
 * longer knows the instance (its lease ran out during an outage), it registers again.
 *
 * <p>
 * Stop (SIGTERM): this lifecycle's phase ends before Spring's graceful shutdown begins,
 * so callers still reach the instance while it leaves. It asks Ballast to drain it (the
 * registry's drain API, over {@code ballast.client.shutdown-drain-ramp}), waits until
 * Ballast reports it {@code DRAINED}, which is when every live subscriber acknowledged
 * its weight 0 (at most {@code ballast.client.shutdown-drain-timeout}), deregisters, and
 * only then lets the graceful shutdown finish the calls in flight. A drain the registry's
 * guard refuses (too much of the service already out) is logged, and the instance
 * deregisters at once.
 */
final class BallastRegistration implements SmartLifecycle {

	/**
	 * Started after the web server (it must listen when callers learn of it), stopped
	 * before the graceful shutdown (phase {@code Integer.MAX_VALUE - 1024}) closes it.
	 */
	static final int PHASE = Integer.MAX_VALUE - 512;

	private static final Duration FIRST_RETRY = Duration.ofSeconds(1);

	private static final Duration MAX_RETRY = Duration.ofSeconds(10);

	private static final Log log = LogFactory.getLog(BallastRegistration.class);

	private final Registry registry;

	private final Supplier<InstanceRegistration> registrations;

	private final Duration heartbeatInterval;

	private final Duration drainRamp;

	private final Duration drainTimeout;

	private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "ballast-registration");
		thread.setDaemon(true);
		return thread;
	});

	private volatile RegistrationState state;

	private volatile boolean running;

	/** Failures in a row, for the retry delay; only the timer's thread changes it. */
	private int failures;

	BallastRegistration(Registry registry, Supplier<InstanceRegistration> registrations, Duration heartbeatInterval,
			Duration drainRamp, Duration drainTimeout) {
		this.registry = registry;
		this.registrations = registrations;
		this.heartbeatInterval = heartbeatInterval;
		this.drainRamp = drainRamp;
		this.drainTimeout = drainTimeout;
	}

	@Override
	public void start() {
		InstanceRegistration registration = registrations.get();
		state = new RegistrationState(registration, "REGISTERING", null, 0, null, Instant.now());
		running = true;
		try {
			registered(registry.register(registration));
			log.info("registered " + registration.service() + "/" + registration.id() + " in Ballast");
			schedule(this::heartbeat, heartbeatInterval);
		}
		catch (RegistryException ex) {
			refuseToStartIfWrong(ex);
			failed(ex);
			log.warn("Ballast did not register " + registration.id() + " (" + ex.getMessage()
					+ "); the application starts anyway and registers when Ballast answers");
			schedule(this::register, retryDelay());
		}
	}

	private void refuseToStartIfWrong(RegistryException ex) {
		if (ex.tokenRefused()) {
			running = false;
			throw new BallastConfigurationException("ballast.client.token",
					"Ballast refused the token (" + ex.status() + "): it must be a registrant's token for the service "
							+ state.registration().service() + " (" + ex.getMessage() + ")",
					ex);
		}
		if (ex.status() == 400 || ex.status() == 422) {
			running = false;
			throw new BallastConfigurationException("ballast.instance.*",
					"Ballast refused the registration: " + ex.getMessage(), ex);
		}
	}

	private void register() {
		try {
			registered(registry.register(state.registration()));
			log.info("registered " + state.registration().id() + " in Ballast");
			schedule(this::heartbeat, heartbeatInterval);
		}
		catch (RegistryException ex) {
			failed(ex);
			Duration delay = retryDelay();
			log.warn("registering in Ballast failed, retrying in " + delay.toMillis() + " ms: " + ex.getMessage());
			schedule(this::register, delay);
		}
	}

	private void heartbeat() {
		InstanceRegistration registration = state.registration();
		try {
			Optional<Heartbeat> beat = registry.heartbeat(registration.service(), registration.id());
			if (beat.isEmpty()) {
				log.info("Ballast no longer knows " + registration.id() + "; registering it again");
				register();
				return;
			}
			failures = 0;
			state = new RegistrationState(registration, "REGISTERED", beat.get().mode(), beat.get().effectiveWeight(),
					null, state.phase().equals("REGISTERED") ? state.since() : Instant.now());
			schedule(this::heartbeat, heartbeatInterval);
		}
		catch (RegistryException ex) {
			failed(ex);
			Duration delay = retryDelay();
			log.warn(
					"the heartbeat to Ballast failed, trying again in " + delay.toMillis() + " ms: " + ex.getMessage());
			schedule(this::heartbeat, (delay.compareTo(heartbeatInterval) < 0) ? delay : heartbeatInterval);
		}
	}

	private void registered(WatchedInstance instance) {
		failures = 0;
		state = new RegistrationState(state.registration(), "REGISTERED", instance.mode(), instance.effectiveWeight(),
				null, Instant.now());
	}

	private void failed(RegistryException ex) {
		failures++;
		RegistrationState now = state;
		state = new RegistrationState(now.registration(), now.phase(), now.mode(), now.effectiveWeight(),
				ex.getMessage(), now.since());
	}

	private Duration retryDelay() {
		Duration delay = FIRST_RETRY.multipliedBy(1L << Math.min(Math.max(failures - 1, 0), 10));
		return (delay.compareTo(MAX_RETRY) > 0) ? MAX_RETRY : delay;
	}

	private void schedule(Runnable task, Duration delay) {
		if (running) {
			try {
				timer.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				// Stopping: the instance is leaving, nothing is to be renewed.
			}
		}
	}

	@Override
	public void stop() {
		running = false;
		timer.shutdownNow();
		try {
			// A heartbeat in flight could register the instance again after it left.
			timer.awaitTermination(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		RegistrationState last = state;
		if (last == null) {
			return;
		}
		InstanceRegistration registration = last.registration();
		boolean drained = last.phase().equals("REGISTERED") && drain(registration);
		try {
			registry.deregister(registration.service(), registration.id());
			state = new RegistrationState(registration, "DEREGISTERED", null, 0, null, Instant.now());
			log.info("deregistered " + registration.id() + " from Ballast");
			if (!drained && last.phase().equals("REGISTERED")) {
				awaitRemovalAcknowledged(registration);
			}
		}
		catch (RegistryException ex) {
			log.warn("deregistering " + registration.id() + " failed; its lease will run out: " + ex.getMessage());
		}
	}

	/**
	 * Without a drain, the removal is what callers must apply before the web server
	 * stops: wait, within the same bound, until the service's subscribers acknowledged
	 * it.
	 */
	private void awaitRemovalAcknowledged(InstanceRegistration registration) {
		long began = System.nanoTime();
		try {
			boolean acknowledged = registry.awaitAcknowledged(registration.service(), drainTimeout);
			log.info("the removal of " + registration.id() + " was " + (acknowledged ? "" : "not ")
					+ "acknowledged by every subscriber after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began) + " ms");
		}
		catch (RegistryException ex) {
			log.warn("could not follow the subscribers of " + registration.service() + ": " + ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Drains the instance and waits for it; whether it was confirmed DRAINED in time. */
	private boolean drain(InstanceRegistration registration) {
		long began = System.nanoTime();
		state = new RegistrationState(registration, "DRAINING", state.mode(), state.effectiveWeight(), null,
				Instant.now());
		try {
			registry.drain(registration.service(), registration.id(), drainRamp);
			Optional<WatchedInstance> drained = registry.awaitMode(registration.service(), registration.id(), "DRAINED",
					drainRamp.plus(drainTimeout));
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
			if (drained.isPresent()) {
				log.info("drained " + registration.id() + " in " + millis
						+ " ms: every subscriber acknowledged weight 0");
			}
			else {
				log.warn("drain of " + registration.id() + " not confirmed within " + millis
						+ " ms (ballast.client.shutdown-drain-timeout); deregistering anyway");
			}
			return true;
		}
		catch (RegistryException ex) {
			log.warn("draining " + registration.id() + " failed (" + ex.getMessage()
					+ "); deregistering, then waiting for the subscribers to acknowledge the removal");
			return false;
		}
	}

	@Override
	public boolean isRunning() {
		return running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/** Where the registration stands; null before the application started. */
	RegistrationState state() {
		return state;
	}

}

package dev.ballast.probe;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckKind;
import dev.ballast.registry.CheckTargets;
import dev.ballast.registry.Port;

/**
 * The probes of each kind, the one timer that keeps every probe's deadline (one thread
 * for all probes, not one per probe) and the dialer they connect through.
 */
final class Probes implements AutoCloseable {

	private final ScheduledThreadPoolExecutor deadlines = new ScheduledThreadPoolExecutor(1,
			Thread.ofPlatform().name("ballast-probe-deadlines").daemon().factory());

	private final Map<CheckKind, Probe> probes;

	Probes(CheckTargets targets) {
		// Nearly every deadline is cancelled when its probe ends well before it: they
		// leave the queue then, not when they would have fired.
		deadlines.setRemoveOnCancelPolicy(true);
		Dialer dialer = new Dialer(targets);
		this.probes = Map.of(CheckKind.HTTP, new HttpProbe(dialer), CheckKind.TCP, new TcpProbe(dialer), CheckKind.GRPC,
				new GrpcProbe(dialer));
	}

	/** A deadline {@code timeout} from now. */
	Deadline deadline(Duration timeout) {
		return Deadline.start(timeout, deadlines);
	}

	/**
	 * One probe of {@code check}, cut when {@code deadline} passes.
	 * @param instancePort the port of the check's instance
	 */
	ProbeOutcome run(CheckDefinition check, Port instancePort, Deadline deadline) {
		return probes.get(check.kind()).run(check, instancePort, deadline);
	}

	/** One probe of {@code check} with a deadline of its timeout, as tests run it. */
	ProbeOutcome run(CheckDefinition check) {
		try (Deadline deadline = deadline(check.timeout())) {
			return run(check, check.port(), deadline);
		}
	}

	@Override
	public void close() {
		deadlines.shutdownNow();
	}

}

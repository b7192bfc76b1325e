package dev.ballast.lease;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import dev.ballast.registry.Leases;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * The sweep's first step: records its tick and, after a gap the registry was not watching
 * ({@link SweepGap}; a late tick of a node that kept its {@link Vigil} is no gap),
 * extends every lease by it. It commits in a transaction of its own, called while the
 * sweep's transaction holds the sweep lock and nothing else: the extension locks instance
 * rows, and writers lock a service row before its instances, so an extension still
 * holding its rows while the sweep waits for a service row would deadlock with a writer
 * of that service. The tick and the extension commit together, so a sweep that fails
 * afterwards is never followed by a second extension for the same gap.
 */
@Component
class SweepTick {

	private static final Logger log = LoggerFactory.getLogger(SweepTick.class);

	private final LeaseStore store;

	private final Leases leases;

	private final LeaseSettings settings;

	private final Vigil vigil;

	private final Counter extensions;

	SweepTick(LeaseStore store, Leases leases, LeaseSettings settings, Vigil vigil, MeterRegistry meters) {
		this.store = store;
		this.leases = leases;
		this.settings = settings;
		this.vigil = vigil;
		this.extensions = Counter.builder("ballast.lease.extensions")
			.description("Sweeps that extended every lease because the registry was not watching")
			.register(meters);
	}

	/**
	 * @return how long the registry was not watching; leases are extended by it
	 */
	@Transactional(propagation = Propagation.REQUIRES_NEW, timeout = 30)
	Duration record(Instant now) {
		// PostgreSQL keeps microseconds: the tick read back must equal the one kept here.
		Instant tick = now.truncatedTo(ChronoUnit.MICROS);
		Instant previous = store.tick(tick).orElse(null);
		boolean watched = vigil.keptSince(previous, tick);
		vigil.ticked(tick);
		Duration outage = watched ? Duration.ZERO
				: SweepGap.outage(previous, tick, settings.sweepInterval(), settings.pauseTolerance());
		if (!outage.isZero()) {
			int extended = leases.extendLeases(outage);
			extensions.increment();
			log.warn("Leases were not watched for {}; extended {} leases by that before expiring any", outage,
					extended);
		}
		return outage;
	}

}

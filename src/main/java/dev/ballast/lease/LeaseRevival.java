package dev.ballast.lease;

import java.time.Instant;
import java.util.Optional;

import dev.ballast.registry.Audit;
import dev.ballast.registry.Checks;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Health;
import dev.ballast.registry.Instance;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceKey;
import dev.ballast.registry.LeaseStatus;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.WritePath;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Brings an instance whose lease ran out back to PASSING, with its weight, when it
 * renews.
 */
@Component
class LeaseRevival {

	private final WritePath path;

	private final Checks checks;

	LeaseRevival(WritePath path, Checks checks) {
		this.path = path;
		this.checks = checks;
	}

	/**
	 * @return the instance's state after the renewal, or empty when it no longer exists
	 */
	@Transactional
	Optional<LeaseStatus> revive(InstanceKey key, Instant at) {
		return path.lockIfPresent(ServiceName.of(key.service()))
			.flatMap(locked -> locked.find(InstanceId.of(key.id())).map(current -> {
				// A renewal older than the instance's last word does not revive it: the
				// instance may have reported a failing check since (HealthReports). Nor
				// does any renewal while a check the registry runs says it is critical:
				// a process whose request threads hang still heartbeats.
				Instance renewed = current.health() == Health.CRITICAL && !at.isBefore(current.lastRenewedAt())
						&& !checks.failing(current.service(), current.id())
								? locked.changes(Guard.none())
									.put(current, current.renewed(at))
									.commit(Audit.none("a revival by heartbeat: the lease running out was audited "
											+ "(instance.expire), its renewal is not"))
									.stored(current.id())
								: current;
				return new LeaseStatus(renewed.mode(), renewed.effectiveWeight(), renewed.leaseTtl(), renewed.health());
			}));
	}

}

package dev.ballast.lease;

import java.time.Instant;
import java.util.Optional;

import dev.ballast.instance.Health;
import dev.ballast.instance.Instance;
import dev.ballast.instance.InstanceId;
import dev.ballast.instance.InstanceWrites;
import dev.ballast.instance.ServiceName;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Brings an instance whose lease ran out back to PASSING, with its weight, when it
 * renews.
 */
@Component
class LeaseRevival {

	private final InstanceWrites writes;

	LeaseRevival(InstanceWrites writes) {
		this.writes = writes;
	}

	/**
	 * @return the instance's state after the renewal, or empty when it no longer exists
	 */
	@Transactional
	Optional<LeaseStatus> revive(InstanceKey key, Instant at) {
		return writes.lock(ServiceName.of(key.service()), InstanceId.of(key.id())).map(current -> {
			Instance renewed = current.health() == Health.CRITICAL ? writes.save(current.renewed(at)) : current;
			return new LeaseStatus(renewed.mode(), renewed.effectiveWeight().value(), renewed.leaseTtlSeconds(),
					renewed.health());
		});
	}

}

package dev.ballast.instance;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import dev.ballast.weight.Weight;

/**
 * One registered instance of a service as stored.
 *
 * @param service the service it belongs to
 * @param id its client-chosen id
 * @param address host name or IP address
 * @param port TCP port, 1..65535
 * @param zone failure domain, or {@code null}
 * @param weight the configured weight
 * @param effectiveWeight what balancers must use
 * @param mode the operator-requested mode
 * @param health whether the lease is current
 * @param metadata free-form labels
 * @param leaseTtlSeconds how long the lease lasts after each renewal
 * @param lastRenewedAt when the lease was last renewed
 * @param revision the service revision of the last change to this instance
 */
public record Instance(ServiceName service, InstanceId id, String address, int port, String zone, Weight weight,
		Weight effectiveWeight, Mode mode, Health health, Metadata metadata, int leaseTtlSeconds,
		Instant lastRenewedAt, long revision) {

	public Instance {
		Objects.requireNonNull(service, "service");
		Objects.requireNonNull(id, "id");
		Objects.requireNonNull(address, "address");
		Objects.requireNonNull(weight, "weight");
		Objects.requireNonNull(effectiveWeight, "effectiveWeight");
		Objects.requireNonNull(mode, "mode");
		Objects.requireNonNull(health, "health");
		Objects.requireNonNull(metadata, "metadata");
		Objects.requireNonNull(lastRenewedAt, "lastRenewedAt");
	}

	/** The lease lasts exactly its TTL after the last renewal. */
	public Instant leaseExpiresAt() {
		return lastRenewedAt.plus(Duration.ofSeconds(leaseTtlSeconds));
	}

	/** Whether balancers may send traffic to this instance. */
	public boolean routable() {
		return effectiveWeight.value() > 0;
	}

	/** Whether the parts of the instance that clients see differ, leases aside. */
	boolean sameRegistrationAs(Instance other) {
		return address.equals(other.address) && port == other.port && Objects.equals(zone, other.zone)
				&& weight.equals(other.weight) && effectiveWeight.equals(other.effectiveWeight)
				&& mode == other.mode && health == other.health && metadata.equals(other.metadata)
				&& leaseTtlSeconds == other.leaseTtlSeconds;
	}

}

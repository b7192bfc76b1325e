package dev.ballast.registry;

import java.time.Instant;
import java.util.Objects;

import dev.ballast.weight.EffectiveWeight.Rotation;
import dev.ballast.weight.EffectiveWeight;
import dev.ballast.weight.NominalWeight;
import dev.ballast.weight.Weight;

/**
 * One registered instance of a service as stored.
 *
 * @param service the service it belongs to
 * @param id its client-chosen id
 * @param address host name or IP address
 * @param port the port it serves on
 * @param zone failure domain, or {@code null}
 * @param weight the configured weight
 * @param effectiveWeight what balancers must use
 * @param nominalWeight what the guard counts it with ({@link NominalWeight})
 * @param mode the operator-requested mode
 * @param detail why it is in that mode and until when, or null
 * @param health whether the lease is current
 * @param ejected whether its health made it unroutable (a critical instance may be held
 * routable by the ejection cap)
 * @param criticalReason why it is critical; null exactly when it is passing
 * @param metadata free-form labels
 * @param tags labels in the registrant's order ({@link Tags})
 * @param leaseTtl how long the lease lasts after each renewal
 * @param lastRenewedAt when the lease was last renewed
 * @param revision the service revision of the last change to this instance
 */
public record Instance(ServiceName service, InstanceId id, String address, Port port, String zone, Weight weight,
		Weight effectiveWeight, Weight nominalWeight, Mode mode, ModeDetail detail, Health health, boolean ejected,
		CriticalReason criticalReason, Metadata metadata, Tags tags, LeaseTtl leaseTtl, Instant lastRenewedAt,
		long revision) {

	public Instance {
		Objects.requireNonNull(service, "service");
		Objects.requireNonNull(id, "id");
		Objects.requireNonNull(address, "address");
		Objects.requireNonNull(port, "port");
		Objects.requireNonNull(weight, "weight");
		Objects.requireNonNull(effectiveWeight, "effectiveWeight");
		Objects.requireNonNull(nominalWeight, "nominalWeight");
		Objects.requireNonNull(mode, "mode");
		Objects.requireNonNull(health, "health");
		Objects.requireNonNull(metadata, "metadata");
		Objects.requireNonNull(tags, "tags");
		Objects.requireNonNull(leaseTtl, "leaseTtl");
		Objects.requireNonNull(lastRenewedAt, "lastRenewedAt");
		if (ejected && health != Health.CRITICAL) {
			throw new IllegalArgumentException("only a CRITICAL instance can be ejected");
		}
		if ((criticalReason != null) != (health == Health.CRITICAL)) {
			throw new IllegalArgumentException("a CRITICAL instance, and only one, has a reason; got %s with reason %s"
				.formatted(health, criticalReason));
		}
	}

	/**
	 * The weight balancers must use: ejection takes an instance out whatever its mode.
	 */
	private static Weight effective(Weight weight, Mode mode, boolean ejected, Weight rampWeight) {
		return EffectiveWeight.of(weight, ejected ? Rotation.OUT : mode.rotation(), rampWeight);
	}

	/**
	 * A registration of an instance that is new ({@code current} null) or stored as
	 * {@code current}: renewed and passing, its mode and ramp carried over; the nominal
	 * weight remembers the last positive weight when the registrant sets 0.
	 */
	public static Instance registered(ServiceName service, InstanceId id, String address, Port port, String zone,
			Weight weight, Metadata metadata, Tags tags, LeaseTtl leaseTtl, Instant renewedAt, Instance current) {
		if (current == null) {
			return new Instance(service, id, address, port, zone, weight, weight, weight, Mode.SERVING, null,
					Health.PASSING, false, null, metadata, tags, leaseTtl, renewedAt, 0);
		}
		return new Instance(service, id, address, port, zone, weight,
				effective(weight, current.mode, false, current.effectiveWeight),
				NominalWeight.after(current.nominalWeight, weight, true), current.mode, current.detail, Health.PASSING,
				false, null, metadata, tags, leaseTtl, renewedAt, current.revision);
	}

	/** This instance after an operator's edit of its zone, weight, metadata and tags. */
	public Instance edited(String newZone, Weight newWeight, Metadata newMetadata, Tags newTags) {
		Instance weighted = withWeight(newWeight);
		return new Instance(service, id, address, port, newZone, newWeight, weighted.effectiveWeight,
				weighted.nominalWeight, mode, detail, health, ejected, criticalReason, newMetadata, newTags, leaseTtl,
				lastRenewedAt, revision);
	}

	/** The lease lasts exactly its TTL after the last renewal. */
	public Instant leaseExpiresAt() {
		return lastRenewedAt.plus(leaseTtl.duration());
	}

	/** Whether balancers may send traffic to this instance. */
	public boolean routable() {
		return effectiveWeight.value() > 0;
	}

	/**
	 * This instance renewed at {@code at}: passing again, with its weight back if it was
	 * ejected.
	 */
	public Instance renewed(Instant at) {
		return new Instance(service, id, address, port, zone, weight, effective(weight, mode, false, effectiveWeight),
				nominalWeight, mode, detail, Health.PASSING, false, null, metadata, tags, leaseTtl, at, revision);
	}

	/**
	 * This instance with its lease run out; {@code eject} when the ejection cap allows
	 * it. One already critical keeps the reason it has: a check that failed first is
	 * still the cause when the sweep later ejects it.
	 */
	public Instance expired(boolean eject) {
		return critical(health == Health.CRITICAL ? criticalReason : CriticalReason.LEASE_EXPIRED, eject);
	}

	/**
	 * This instance critical for {@code reason}; {@code eject} when the ejection cap
	 * allows it.
	 */
	public Instance critical(CriticalReason reason, boolean eject) {
		return new Instance(service, id, address, port, zone, weight, effective(weight, mode, eject, effectiveWeight),
				nominalWeight, mode, detail, Health.CRITICAL, eject, Objects.requireNonNull(reason, "reason"), metadata,
				tags, leaseTtl, lastRenewedAt, revision);
	}

	public Instance withRevision(long newRevision) {
		return new Instance(service, id, address, port, zone, weight, effectiveWeight, nominalWeight, mode, detail,
				health, ejected, criticalReason, metadata, tags, leaseTtl, lastRenewedAt, newRevision);
	}

	/**
	 * This instance in {@code newMode}, with the weight a ramp set (ejection still wins:
	 * an ejected instance stays at 0).
	 */
	public Instance inMode(Mode newMode, Weight rampWeight, ModeDetail newDetail) {
		return new Instance(service, id, address, port, zone, weight, effective(weight, newMode, ejected, rampWeight),
				nominalWeight, newMode, newDetail, health, ejected, criticalReason, metadata, tags, leaseTtl,
				lastRenewedAt, revision);
	}

	/**
	 * This instance with a configured weight an operator or a registrant set, its
	 * effective weight following; at 0 it keeps counting with its last positive weight.
	 */
	public Instance withWeight(Weight newWeight) {
		return weighted(newWeight, NominalWeight.after(nominalWeight, newWeight, true));
	}

	/**
	 * This instance with the configured weight a traffic shift set: capacity moved, not
	 * taken away, so the nominal weight is the new weight.
	 */
	public Instance shiftedTo(Weight newWeight) {
		return weighted(newWeight, NominalWeight.after(nominalWeight, newWeight, false));
	}

	private Instance weighted(Weight newWeight, Weight newNominal) {
		return new Instance(service, id, address, port, zone, newWeight,
				effective(newWeight, mode, ejected, effectiveWeight), newNominal, mode, detail, health, ejected,
				criticalReason, metadata, tags, leaseTtl, lastRenewedAt, revision);
	}

	/**
	 * Whether an operator action, a weight held at 0 by hand or an ejection keeps it out
	 * of rotation, as the unroutable budget counts it.
	 */
	public boolean heldOut() {
		return ejected || heldOutByAction();
	}

	/**
	 * What of its nominal weight it serves, as the guard and the ejection cap count it:
	 * nothing while it is held out (a drain counts whole from its start), else its
	 * effective weight, which a warm-up has not yet brought up to its configured weight.
	 */
	public int serving() {
		return heldOut() ? 0 : Math.min(effectiveWeight.value(), nominalWeight.value());
	}

	/**
	 * Whether an operator action or a weight held at 0 by hand keeps it out of rotation.
	 */
	public boolean heldOutByAction() {
		return mode == Mode.DRAINING || mode == Mode.DRAINED || mode == Mode.MAINTENANCE
				|| NominalWeight.heldAtZero(weight, nominalWeight);
	}

	/**
	 * Why it does not serve all its nominal weight ({@link #serving()}), and until when,
	 * in words for refusals; null when it does.
	 */
	String holding() {
		if (ejected) {
			return "ejected: " + cause();
		}
		return switch (mode) {
			case DRAINING -> "draining";
			case DRAINED -> "drained";
			case MAINTENANCE ->
				detail != null && detail.until() != null ? "in maintenance until " + detail.until() : "in maintenance";
			case SERVING, WARMING -> NominalWeight.heldAtZero(weight, nominalWeight) ? "held at weight 0"
					: serving() < nominalWeight.value() ? warming() : null;
		};
	}

	/**
	 * Its health in words, for readers: why it is critical and whether the ejection cap
	 * took it out or holds it routable; null while it passes.
	 */
	public String healthDetail() {
		if (criticalReason == null) {
			return null;
		}
		return ejected ? "Critical: %s. Ejected: out of rotation until %s.".formatted(cause(), criticalReason.back())
				: "Critical: %s. The ejection cap holds it routable: balancers still send it traffic."
					.formatted(cause());
	}

	/** Why it is critical, in words: the reason, and when the lease ran out. */
	private String cause() {
		return criticalReason == CriticalReason.LEASE_EXPIRED ? "its lease ran out at " + leaseExpiresAt()
				: criticalReason.words();
	}

	private String warming() {
		String ends = detail != null && detail.until() != null ? ", its ramp ends at " + detail.until() : "";
		return "warming up: serves %d of %d%s".formatted(serving(), nominalWeight.value(), ends);
	}

	/** Whether the parts of the instance that clients see differ, lease times aside. */
	boolean sameRegistrationAs(Instance other) {
		return address.equals(other.address) && port.equals(other.port) && Objects.equals(zone, other.zone)
				&& weight.equals(other.weight) && effectiveWeight.equals(other.effectiveWeight)
				&& nominalWeight.equals(other.nominalWeight) && mode == other.mode
				&& Objects.equals(detail, other.detail) && health == other.health && ejected == other.ejected
				&& criticalReason == other.criticalReason && metadata.equals(other.metadata) && tags.equals(other.tags)
				&& leaseTtl.equals(other.leaseTtl);
	}

}

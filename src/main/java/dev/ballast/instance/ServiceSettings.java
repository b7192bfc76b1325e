package dev.ballast.instance;

import java.util.Objects;

import dev.ballast.weight.Weight;
import dev.ballast.weight.WeightPolicy;

/**
 * The per-service settings an operator may change.
 *
 * @param name the service
 * @param weightPolicy how weights in writes are read
 * @param defaultWeight weight of an instance registered without one
 * @param leaseTtlSeconds lease TTL of an instance registered without one
 * @param maxUnroutablePercent share of nominal weight operator actions may take away
 * @param maxEjectionPercent share of nominal weight lease expiry may take away at once
 * @param revision the service's current revision
 */
public record ServiceSettings(ServiceName name, WeightPolicy weightPolicy, Weight defaultWeight, int leaseTtlSeconds,
		int maxUnroutablePercent, int maxEjectionPercent, long revision) {

	public ServiceSettings {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(weightPolicy, "weightPolicy");
		Objects.requireNonNull(defaultWeight, "defaultWeight");
	}

	ServiceSettings withRevision(long newRevision) {
		return new ServiceSettings(name, weightPolicy, defaultWeight, leaseTtlSeconds, maxUnroutablePercent,
				maxEjectionPercent, newRevision);
	}

	boolean sameSettingsAs(ServiceSettings other) {
		return weightPolicy == other.weightPolicy && defaultWeight.equals(other.defaultWeight)
				&& leaseTtlSeconds == other.leaseTtlSeconds && maxUnroutablePercent == other.maxUnroutablePercent
				&& maxEjectionPercent == other.maxEjectionPercent;
	}

}

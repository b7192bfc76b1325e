package dev.ballast.registry;

import java.util.Objects;

import dev.ballast.weight.LocalityPolicy;
import dev.ballast.weight.MaxUnroutable;
import dev.ballast.weight.Weight;
import dev.ballast.weight.WeightPolicy;

/**
 * The per-service settings an operator may change.
 *
 * @param name the service
 * @param weightPolicy how weights in writes are read
 * @param defaultWeight weight of an instance registered without one
 * @param leaseTtl lease TTL of an instance registered without one
 * @param maxUnroutable how much of each scope's capacity the actions of operators and
 * registrants may take away ({@link MaxUnroutable})
 * @param maxUnroutablePercent the percent a traffic shift is held to; equal to
 * {@code maxUnroutable} when that is a percent
 * @param maxEjectionPercent share of nominal weight lease expiry may take away at once
 * @param locality how a balancer in one zone shares traffic with other zones, or
 * {@code null} for the flat view
 * @param revision the service's current revision
 */
public record ServiceSettings(ServiceName name, WeightPolicy weightPolicy, Weight defaultWeight, LeaseTtl leaseTtl,
		MaxUnroutable maxUnroutable, int maxUnroutablePercent, int maxEjectionPercent, LocalityPolicy locality,
		long revision) {

	/** What every percent of the settings must be, as a refusal words it. */
	public static final String PERCENT = "must be an integer from 0 to 100";

	public ServiceSettings {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(weightPolicy, "weightPolicy");
		Objects.requireNonNull(defaultWeight, "defaultWeight");
		Objects.requireNonNull(leaseTtl, "leaseTtl");
		Objects.requireNonNull(maxUnroutable, "maxUnroutable");
		if (maxUnroutable.percent() && maxUnroutable.value() != maxUnroutablePercent) {
			throw new IllegalArgumentException("maxUnroutable %s and maxUnroutablePercent %d disagree"
				.formatted(maxUnroutable, maxUnroutablePercent));
		}
	}

	ServiceSettings withRevision(long newRevision) {
		return new ServiceSettings(name, weightPolicy, defaultWeight, leaseTtl, maxUnroutable, maxUnroutablePercent,
				maxEjectionPercent, locality, newRevision);
	}

	boolean sameSettingsAs(ServiceSettings other) {
		return weightPolicy == other.weightPolicy && defaultWeight.equals(other.defaultWeight)
				&& leaseTtl.equals(other.leaseTtl) && maxUnroutable.equals(other.maxUnroutable)
				&& maxUnroutablePercent == other.maxUnroutablePercent && maxEjectionPercent == other.maxEjectionPercent
				&& Objects.equals(locality, other.locality);
	}

}

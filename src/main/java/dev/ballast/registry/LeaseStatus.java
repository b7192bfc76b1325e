package dev.ballast.registry;

import dev.ballast.weight.Weight;

/**
 * What a heartbeat answers with, cached per instance.
 *
 * @param mode the instance's mode
 * @param effectiveWeight its effective weight
 * @param ttl its lease TTL
 * @param health whether its lease is current
 */
public record LeaseStatus(Mode mode, Weight effectiveWeight, LeaseTtl ttl, Health health) {
}

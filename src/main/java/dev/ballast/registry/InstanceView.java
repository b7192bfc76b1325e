package dev.ballast.registry;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ballast.weight.Weight;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * An instance as clients, balancers and watchers receive it. Weights are {@link Weight}s,
 * the port a {@link Port}, the lease TTL a {@link LeaseTtl}, and every other number a
 * Java {@code long}, so each can only ever be written as a JSON integer.
 */
@Schema(name = "Instance", description = "A registered instance. Balancers must use effectiveWeight.")
public record InstanceView(@Schema(example = "payments") String service, @Schema(example = "10.0.0.5:8080") String id,
		@Schema(example = "10.0.0.5") String address, Port port,
		@Schema(example = "az-1",
				description = "Failure domain; absent when the instance has none") @JsonInclude(JsonInclude.Include.NON_NULL) String zone,
		@Schema(description = "Configured weight") Weight weight,
		@Schema(description = "The weight balancers must use: configured weight after mode ramps, maintenance and health, never above the configured weight") Weight effectiveWeight,
		@Schema(description = "effectiveWeight > 0 and the instance may receive traffic") boolean routable, Mode mode,
		@Schema(description = "The operator's reason for maintenance; absent otherwise",
				example = "kernel upgrade") @JsonInclude(JsonInclude.Include.NON_NULL) String modeReason,
		@Schema(description = "When the registry ends the mode by itself: the end of maintenance, while WARMING "
				+ "the time the ramp reaches the configured weight, or while DRAINING the time the drain completes at "
				+ "the latest (ballast.drain.confirm-timeout after its weight reaches 0); absent when it does not") @JsonInclude(JsonInclude.Include.NON_NULL) Instant modeUntil,
		@Schema(description = "While DRAINING: the live subscribers that have not yet acknowledged weight 0, which "
				+ "the drain waits for until modeUntil. Once DRAINED: those that had not when the confirmation timed "
				+ "out. Absent when there are none") @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> unconfirmedSubscribers,
		Health health,
		@Schema(description = "Why the instance is CRITICAL: its lease ran out (lease-expired), a check the "
				+ "registry runs fails (check-failing: see its checks on GET of the instance), or it reported itself "
				+ "critical (reported-critical: a failing TTL check or a critical registration). Absent while it is "
				+ "PASSING") @JsonInclude(JsonInclude.Include.NON_NULL) CriticalReason criticalReason,
		@Schema(description = "Its health in words while it is CRITICAL: the cause, and whether the ejection cap took "
				+ "it out of rotation or holds it routable. Absent while it is PASSING",
				example = "Critical: a check the registry runs on it fails. The ejection cap holds it routable: "
						+ "balancers still send it traffic.") @JsonInclude(JsonInclude.Include.NON_NULL) String healthDetail,
		@Schema(example = "{\"version\":\"2.4.1\"}") Map<String, String> metadata,
		@ArraySchema(schema = @Schema(minLength = 1, maxLength = Tags.MAX_LENGTH), maxItems = Tags.MAX_TAGS,
				uniqueItems = true,
				arraySchema = @Schema(
						description = "Labels in the registrant's order, as Consul clients attach them; "
								+ "only labels: a tag never sets a weight",
						example = "[\"v2\",\"traefik.enable=true\"]")) List<String> tags,
		LeaseTtl leaseTtlSeconds, Instant leaseExpiresAt,
		@Schema(description = "Service revision of the last change to this instance", minimum = "1",
				example = "42") long revision) {

	/**
	 * @throws IllegalArgumentException when {@code routable} is not
	 * {@code effectiveWeight > 0}, so that a reader may rely on either
	 */
	public InstanceView {
		if (routable != effectiveWeight.value() > 0) {
			throw new IllegalArgumentException("an instance is routable exactly when its effective weight is above 0; "
					+ "got routable %s at effective weight %d".formatted(routable, effectiveWeight.value()));
		}
	}

	/**
	 * The same instance at {@code revision}: how a zone's stream sends an instance whose
	 * weight in the zone's view moved at that revision although the instance itself did
	 * not change.
	 */
	public InstanceView atRevision(long revision) {
		return new InstanceView(service, id, address, port, zone, weight, effectiveWeight, routable, mode, modeReason,
				modeUntil, unconfirmedSubscribers, health, criticalReason, healthDetail, metadata, tags,
				leaseTtlSeconds, leaseExpiresAt, revision);
	}

	public static InstanceView of(Instance instance) {
		Optional<ModeDetail> detail = Optional.ofNullable(instance.detail());
		return new InstanceView(instance.service().value(), instance.id().value(), instance.address(), instance.port(),
				instance.zone(), instance.weight(), instance.effectiveWeight(), instance.routable(), instance.mode(),
				detail.map(ModeDetail::reason).orElse(null), detail.map(ModeDetail::until).orElse(null),
				detail.map(ModeDetail::unconfirmedSubscribers).orElse(List.of()), instance.health(),
				instance.criticalReason(), instance.healthDetail(), instance.metadata().entries(),
				instance.tags().values(), instance.leaseTtl(), instance.leaseExpiresAt(), instance.revision());
	}

}

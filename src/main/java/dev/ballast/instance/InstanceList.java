package dev.ballast.instance;

import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * All instances of a service at one revision.
 *
 * @param service the service
 * @param revision the service revision the list is current at
 * @param instances the instances, sorted by id
 */
@Schema(name = "InstanceList")
public record InstanceList(@Schema(example = "payments") String service,
		@Schema(minimum = "0", example = "42") long revision, List<InstanceView> instances) {
}

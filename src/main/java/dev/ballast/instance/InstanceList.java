package dev.ballast.instance;

import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/** All instances of a service at one revision. */
@Schema(name = "InstanceList")
record InstanceList(@Schema(example = "payments") String service, @Schema(minimum = "0", example = "42") long revision,
		List<InstanceView> instances) {
}

package dev.ballast.watch;

import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/** The live subscribers of a service, at its current revision. */
@Schema(name = "SubscriberList")
record SubscriberList(@Schema(example = "payments") String service,
		@Schema(minimum = "0", example = "42") long revision, List<SubscriberView> subscribers) {
}

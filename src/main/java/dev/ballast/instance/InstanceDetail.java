package dev.ballast.instance;

import java.util.List;

import dev.ballast.registry.InstanceView;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * One instance as its own resource ({@code GET /v1/services/{s}/instances/{id}}): the
 * instance as every reader sees it, and the checks the registry runs on it with their
 * last verdicts, which change without a revision (a probe's output is not an event) and
 * are read when the answer is made.
 *
 * @param instance the instance
 * @param checks its checks in their order; null while the database cannot be read
 */
@Schema(name = "InstanceWithChecks",
		description = "An instance with the checks the registry runs on it. Balancers must use effectiveWeight.")
record InstanceDetail(@JsonUnwrapped InstanceView instance,
		@Schema(description = "The checks the registry runs on it, in their order, with their last verdicts; empty "
				+ "when it has none, absent while the node cannot read them (the answer is then stale)") @JsonInclude(JsonInclude.Include.NON_NULL) List<CheckView> checks) {

}

package dev.ballast.lease;

import dev.ballast.registry.InstanceId;
import dev.ballast.registry.ServiceName;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "Instances")
class HeartbeatController {

	private final Heartbeats heartbeats;

	HeartbeatController(Heartbeats heartbeats) {
		this.heartbeats = heartbeats;
	}

	@PostMapping("/v1/services/{service}/instances/{id}/heartbeat")
	@Operation(operationId = "renewLease", summary = "Renew an instance's lease",
			description = "Answers with the instance's mode and effective weight, so it learns at once when it is "
					+ "being drained. An instance whose lease ran out is PASSING again, with its weight. "
					+ "404 means the registry does not know the instance: register it again with PUT. While the "
					+ "database is unreachable, a heartbeat of an instance this node knows is still answered from "
					+ "memory and written once the database is back; leases do not run out meanwhile.")
	@ApiResponse(responseCode = "200", description = "The lease was renewed")
	HeartbeatView beat(@PathVariable String service, @PathVariable String id) {
		return heartbeats.beat(ServiceName.of(service), InstanceId.of(id));
	}

}

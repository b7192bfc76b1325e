package dev.ballast.instance;

import java.time.Instant;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckKind;
import dev.ballast.registry.Checks;
import dev.ballast.registry.StoredCheck;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * A check the registry runs on an instance, and what its probes last said, as the
 * instance resource shows it: the one place that turns a stored check
 * ({@link StoredCheck}, read by {@link Checks}) into what readers see. Its request
 * headers are not shown: they may carry the probe's credentials.
 */
@Schema(name = "InstanceCheck", description = "A health check the registry runs on the instance, with its last verdict")
public record CheckView(
		@Schema(description = "Its id, as Consul's answers name it", example = "service:10.0.0.5:8080:1") String id,
		CheckKind kind,
		@Schema(description = "The URL (HTTP) or host:port (TCP, gRPC) it probes",
				example = "http://10.0.0.5:8080/actuator/health") String target,
		@Schema(minimum = "1000", maximum = "3600000", example = "10000") long intervalMillis,
		@Schema(minimum = "100", example = "2000") long timeoutMillis,
		@Schema(description = "The last verdict, as Consul spells it", allowableValues = {
				"passing", "warning", "critical" }, example = "critical") String status,
		@Schema(description = "What the probe that gave the verdict found (empty until a probe changes it); what "
				+ "the target answered only to a caller that may write the service, the verdict alone to others",
				example = "HTTP GET http://10.0.0.5:8080/actuator/health: ConnectException Connection refused") String output,
		@Schema(description = "Since when it has had this status") Instant since){

	/**
	 * @param mayWrite whether the caller may write the service: only then the output
	 * holds what the target answered ({@link StoredCheck#shownOutput})
	 */
	static CheckView of(StoredCheck check, boolean mayWrite) {
		CheckDefinition definition = check.definition();
		return new CheckView(check.consulId(), definition.kind(), definition.target(), definition.interval().toMillis(),
				definition.timeout().toMillis(), check.status().spelled(), check.shownOutput(mayWrite),
				check.statusSince());
	}

}

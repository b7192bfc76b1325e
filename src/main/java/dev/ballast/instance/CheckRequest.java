package dev.ballast.instance;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckKind;
import dev.ballast.registry.CheckRefusal;
import dev.ballast.registry.CheckTargets;
import dev.ballast.registry.Port;
import dev.ballast.web.InvalidRequestException;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * One check in a registration's {@code checks}: exactly one of {@code http}, {@code tcp},
 * {@code grpc}.
 */
@Schema(name = "Check",
		description = "A health check the registry runs against the instance; exactly one of "
				+ "http, tcp, grpc. It may only target the instance's own address and port (or a network the operator "
				+ "allows).")
record CheckRequest(
		@Schema(description = "GET (or HEAD) this URL: 2xx passing, 429 warning, anything else or no answer critical",
				example = "http://10.0.0.5:8080/actuator/health") String http,
		@Schema(description = "Connect to host:port", example = "10.0.0.5:8080") String tcp,
		@Schema(description = "grpc.health.v1.Health/Check on host:port, or host:port/service",
				example = "10.0.0.5:9090") String grpc,
		@Schema(description = "GET (default) or HEAD", example = "GET") String method,
		@Schema(description = "Request headers, each a list of values",
				example = "{\"Authorization\":[\"Bearer probe\"]}") Map<String, List<String>> headers,
		@Schema(description = "Accept any certificate of an https target (default false)") Boolean tlsSkipVerify,
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED, minimum = "1", maximum = "3600",
				example = "10") Integer intervalSeconds,
		@Schema(minimum = "100",
				description = "Shorter than the interval; default 2000, or half the interval when " + "that is shorter",
				example = "2000") Integer timeoutMillis,
		@Schema(minimum = "0", maximum = "10", description = "Consecutive failures before critical (default 1)",
				example = "2") Integer failuresBeforeCritical,
		@Schema(minimum = "0", maximum = "10", description = "Consecutive successes before passing again (default 1)",
				example = "1") Integer successBeforePassing,
		@Schema(minimum = "60",
				description = "Remove the instance after it has been critical this long (default never)") Long deregisterAfterSeconds) {

	/**
	 * JSON field names of this record, by the meaning {@link CheckRefusal#field()} gives.
	 */
	private static final Map<String, String> FIELDS = Map.of("interval", "intervalSeconds", "timeout", "timeoutMillis",
			"deregisterAfter", "deregisterAfterSeconds");

	/**
	 * The checks of a registration, each checked and its target held to {@code targets}.
	 * @throws InvalidRequestException naming the field at fault
	 * ({@code /checks/1/intervalSeconds})
	 */
	static List<CheckDefinition> definitions(List<CheckRequest> checks, String address, Port port,
			CheckTargets targets) {
		if (checks == null || checks.isEmpty()) {
			return List.of();
		}
		if (checks.size() > CheckDefinition.MAX_PER_INSTANCE) {
			throw InvalidRequestException.of("/checks", "at most %d checks per instance; got %d"
				.formatted(CheckDefinition.MAX_PER_INSTANCE, checks.size()));
		}
		return IntStream.range(0, checks.size()).mapToObj(index -> {
			CheckRequest check = checks.get(index);
			if (check == null) {
				throw InvalidRequestException.of("/checks/" + index, "must be an object");
			}
			try {
				CheckDefinition definition = check.definition();
				targets.require(definition, address, port);
				return definition;
			}
			catch (CheckRefusal refusal) {
				throw InvalidRequestException.of(
						"/checks/" + index + "/" + FIELDS.getOrDefault(refusal.field(), refusal.field()),
						refusal.getMessage());
			}
		}).toList();
	}

	private CheckDefinition definition() {
		long kinds = Stream.of(http, tcp, grpc).filter(Objects::nonNull).count();
		if (kinds != 1) {
			throw new CheckRefusal("http", "a check has exactly one of http, tcp, grpc; got " + kinds);
		}
		CheckKind kind = http != null ? CheckKind.HTTP : tcp != null ? CheckKind.TCP : CheckKind.GRPC;
		String target = http != null ? http : tcp != null ? tcp : grpc;
		if (intervalSeconds == null) {
			throw new CheckRefusal("interval", "the interval between probes is required, in whole seconds (1 to 3600)");
		}
		return CheckDefinition.of(kind, target, method, headers, Boolean.TRUE.equals(tlsSkipVerify),
				Duration.ofSeconds(intervalSeconds), timeoutMillis == null ? null : Duration.ofMillis(timeoutMillis),
				failuresBeforeCritical == null ? 1 : failuresBeforeCritical,
				successBeforePassing == null ? 1 : successBeforePassing,
				deregisterAfterSeconds == null ? null : Duration.ofSeconds(deregisterAfterSeconds));
	}

}

package dev.ballast.consul;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckKind;
import dev.ballast.registry.CheckRefusal;
import dev.ballast.registry.CheckTargets;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.Port;
import dev.ballast.web.Quoted;
import tools.jackson.databind.JsonNode;

/**
 * The checks of a Consul registration body ({@code Check}, {@code Checks}): at most one
 * TTL check, which becomes the instance's lease, and HTTP, TCP and gRPC checks, which
 * Ballast runs itself ({@link CheckDefinition}); at least one of either. Read as
 * {@link ConsulRegistration} reads the rest of the body.
 *
 * @param ttl the TTL check's lease, or null when the checks Ballast runs keep it
 * @param critical whether a check was registered with {@code Status: critical}
 * @param probes the checks Ballast runs
 */
record ConsulChecks(LeaseTtl ttl, boolean critical, List<CheckDefinition> probes) {

	/** Check kinds that Ballast (or a Consul agent) runs, as opposed to TTL checks. */
	private static final List<String> PROBES = List.of("HTTP", "TCP", "GRPC", "UDP", "H2PING", "Args", "Script",
			"DockerContainerID", "AliasService", "AliasNode", "OSService");

	/** Consul's field names, by the meaning {@link CheckRefusal#field()} gives. */
	private static final Map<String, String> CONSUL_FIELDS = Map.of("http", "HTTP", "tcp", "TCP", "grpc", "GRPC",
			"method", "Method", "headers", "Header", "interval", "Interval", "timeout", "Timeout",
			"failuresBeforeCritical", "FailuresBeforeCritical", "successBeforePassing", "SuccessBeforePassing",
			"deregisterAfter", "DeregisterCriticalServiceAfter");

	static ConsulChecks read(JsonNode body, InstanceId id, String address, Port port, CheckTargets targets) {
		List<JsonNode> checks = new ArrayList<>();
		List<String> fields = new ArrayList<>();
		JsonNode one = ConsulRegistration.field(body, "Check");
		if (one != null) {
			checks.add(one);
			fields.add("Check");
		}
		JsonNode many = ConsulRegistration.field(body, "Checks");
		if (many != null) {
			if (!many.isArray()) {
				throw ConsulRefusal.badRequest("Checks",
						"must be a list of checks; got " + ConsulRegistration.kind(many));
			}
			many.forEach(check -> {
				fields.add("Checks[" + (fields.size() - (one != null ? 1 : 0)) + "]");
				checks.add(check);
			});
		}
		if (checks.isEmpty()) {
			throw ConsulRefusal.badRequest("Check",
					"Ballast needs a check: a TTL check, which becomes the instance's lease (\"Check\": {\"TTL\": "
							+ "\"30s\"}, passed before it runs out), or an HTTP, TCP or gRPC check that Ballast runs "
							+ "(\"Check\": {\"HTTP\": \"http://host:port/health\", \"Interval\": \"10s\"})");
		}
		LeaseTtl ttl = null;
		boolean critical = false;
		List<CheckDefinition> probes = new ArrayList<>();
		for (int index = 0; index < checks.size(); index++) {
			String field = fields.get(index);
			JsonNode check = checks.get(index);
			if (!check.isObject()) {
				throw ConsulRefusal.badRequest(field, "must be an object; got " + ConsulRegistration.kind(check));
			}
			critical |= critical(check, field);
			String ttlText = ConsulRegistration.text(check, "TTL");
			if (ttlText != null && !ttlText.isEmpty()) {
				if (ttl != null) {
					throw ConsulRefusal.badRequest(field + ".TTL",
							"Ballast keeps one lease per instance: register at most one TTL check");
				}
				ttl = ttl(check, field, id, ttlText);
			}
			else {
				probes.add(probe(check, field, address, port, targets));
			}
		}
		if (probes.size() > CheckDefinition.MAX_PER_INSTANCE) {
			throw ConsulRefusal.badRequest("Checks", "Ballast runs at most %d checks per instance; got %d"
				.formatted(CheckDefinition.MAX_PER_INSTANCE, probes.size()));
		}
		return new ConsulChecks(ttl, critical, probes);
	}

	private static boolean critical(JsonNode check, String field) {
		String status = ConsulRegistration.text(check, "Status");
		if (status != null && !status.isEmpty() && !List.of("passing", "warning", "critical").contains(status)) {
			throw ConsulRefusal.badRequest(field + ".Status",
					"must be passing, warning or critical; got " + Quoted.quote(status));
		}
		String after = ConsulRegistration.text(check, "DeregisterCriticalServiceAfter");
		if (after != null && !after.isEmpty() && GoDuration.parse(after) == null) {
			throw ConsulRefusal.badRequest(field + ".DeregisterCriticalServiceAfter",
					"must be a duration such as 90m; got " + Quoted.quote(after));
		}
		return "critical".equals(status);
	}

	private static LeaseTtl ttl(JsonNode check, String field, InstanceId id, String ttlText) {
		for (String probe : PROBES) {
			if (present(check, probe)) {
				throw ConsulRefusal.badRequest(field + "." + probe,
						"a check is a TTL check or a " + probe + " check, not both");
			}
		}
		String checkId = ConsulRegistration.text(check, "CheckID");
		if (checkId != null && !checkId.isEmpty() && !checkId.equals("service:" + id.value())) {
			throw ConsulRefusal.badRequest(field + ".CheckID",
					"Ballast names an instance's TTL check service:%s; leave CheckID out or send that; got %s"
						.formatted(id, Quoted.quote(checkId)));
		}
		Duration ttl = GoDuration.parse(ttlText);
		return (ttl == null ? Optional.<LeaseTtl>empty() : LeaseTtl.of(ttl))
			.orElseThrow(() -> ConsulRefusal.badRequest(field + ".TTL",
					"must be a duration of whole seconds from %ds to %ds, which becomes the lease; got %s"
						.formatted(LeaseTtl.MIN, LeaseTtl.MAX, Quoted.quote(ttlText))));
	}

	/** An HTTP, TCP or gRPC check, which Ballast runs. */
	private static CheckDefinition probe(JsonNode check, String field, String address, Port port,
			CheckTargets targets) {
		List<String> kinds = PROBES.stream().filter(probe -> present(check, probe)).toList();
		if (kinds.isEmpty()) {
			throw ConsulRefusal.badRequest(field, "a check needs TTL, HTTP, TCP or GRPC");
		}
		if (kinds.size() > 1) {
			throw ConsulRefusal.badRequest(field + "." + kinds.get(1), "a check has one kind; got " + kinds);
		}
		CheckKind kind = switch (kinds.getFirst()) {
			case "HTTP" -> CheckKind.HTTP;
			case "TCP" -> CheckKind.TCP;
			case "GRPC" -> CheckKind.GRPC;
			default -> throw ConsulRefusal.badRequest(field + "." + kinds.getFirst(), "Ballast runs HTTP, TCP and "
					+ "gRPC checks, and keeps TTL checks as leases; it does not run " + kinds.getFirst() + " checks");
		};
		if (kind == CheckKind.GRPC && Boolean.TRUE.equals(bool(check, field, "GRPCUseTLS"))) {
			throw ConsulRefusal.badRequest(field + ".GRPCUseTLS", "Ballast's gRPC checks are plaintext HTTP/2");
		}
		String interval = ConsulRegistration.text(check, "Interval");
		Duration timeout = duration(check, field, "Timeout");
		String after = ConsulRegistration.text(check, "DeregisterCriticalServiceAfter");
		try {
			CheckDefinition definition = CheckDefinition.of(kind, ConsulRegistration.text(check, kinds.getFirst()),
					ConsulRegistration.text(check, "Method"), headers(check, field),
					Boolean.TRUE.equals(bool(check, field, "TLSSkipVerify")),
					interval == null || interval.isEmpty() ? null : duration(check, field, "Interval"), timeout,
					count(check, field, "FailuresBeforeCritical"), count(check, field, "SuccessBeforePassing"),
					after == null || after.isEmpty() ? null : GoDuration.parse(after));
			targets.require(definition, address, port);
			return definition;
		}
		catch (CheckRefusal refusal) {
			throw ConsulRefusal.badRequest(field + "." + CONSUL_FIELDS.getOrDefault(refusal.field(), kinds.getFirst()),
					refusal.getMessage());
		}
	}

	private static boolean present(JsonNode check, String name) {
		JsonNode value = ConsulRegistration.field(check, name);
		return value != null && !(value.isString() && value.stringValue().isEmpty())
				&& !(value.isArray() && value.isEmpty());
	}

	private static Duration duration(JsonNode check, String field, String name) {
		String text = ConsulRegistration.text(check, name);
		if (text == null || text.isEmpty()) {
			return null;
		}
		Duration duration = GoDuration.parse(text);
		if (duration == null) {
			throw ConsulRefusal.badRequest(field + "." + name,
					"must be a duration such as 10s; got " + Quoted.quote(text));
		}
		return duration;
	}

	private static Boolean bool(JsonNode check, String field, String name) {
		JsonNode value = ConsulRegistration.field(check, name);
		if (value == null) {
			return null;
		}
		if (!value.isBoolean()) {
			throw ConsulRefusal.badRequest(field + "." + name,
					"must be true or false; got " + ConsulRegistration.kind(value));
		}
		return value.booleanValue();
	}

	private static int count(JsonNode check, String field, String name) {
		JsonNode value = ConsulRegistration.field(check, name);
		if (value == null) {
			return 0;
		}
		if (!value.isIntegralNumber() || !value.canConvertToInt()) {
			throw ConsulRefusal.badRequest(field + "." + name,
					"must be an integer; got " + ConsulRegistration.kind(value));
		}
		return value.intValue();
	}

	/** {@code Header}: {@code {"Name": ["value", …]}}, as Consul takes it. */
	private static Map<String, List<String>> headers(JsonNode check, String field) {
		JsonNode header = ConsulRegistration.field(check, "Header");
		Map<String, List<String>> headers = new LinkedHashMap<>();
		if (header == null) {
			return headers;
		}
		if (!header.isObject()) {
			throw ConsulRefusal.badRequest(field + ".Header",
					"must be an object of lists of strings, {\"Name\": [\"value\"]}; got "
							+ ConsulRegistration.kind(header));
		}
		for (Map.Entry<String, JsonNode> entry : header.properties()) {
			if (!entry.getValue().isArray()) {
				throw ConsulRefusal.badRequest(field + ".Header." + entry.getKey(),
						"must be a list of strings; got " + ConsulRegistration.kind(entry.getValue()));
			}
			List<String> values = new ArrayList<>();
			for (JsonNode value : entry.getValue()) {
				if (!value.isString()) {
					throw ConsulRefusal.badRequest(field + ".Header." + entry.getKey(),
							"must be a list of strings; got " + ConsulRegistration.kind(value));
				}
				values.add(value.stringValue());
			}
			headers.put(entry.getKey(), values);
		}
		return headers;
	}

}

package dev.ballast.consul;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import dev.ballast.registry.Address;
import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckKind;
import dev.ballast.registry.CheckRefusal;
import dev.ballast.registry.CheckTargets;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.Port;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.Tags;
import dev.ballast.web.FieldError;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.Quoted;
import dev.ballast.weight.Weight;
import dev.ballast.weight.WeightReader;
import dev.ballast.weight.WeightReading.Exact;
import dev.ballast.weight.WeightReading.Normalized;
import dev.ballast.weight.WeightReading.Refused;
import dev.ballast.weight.WeightReading;
import tools.jackson.databind.JsonNode;

import org.springframework.http.HttpStatus;

/**
 * A body of {@code PUT /v1/agent/service/register}, typed at the border. Field names are
 * matched as Consul matches them (any case, underscores ignored: {@code Name},
 * {@code name}, {@code deregister_critical_service_after}); nulls count as absent; fields
 * Ballast has no use for ({@code EnableTagOverride}, {@code TaggedAddresses},
 * {@code Proxy}, {@code Connect}, a check's {@code Name} or {@code Notes}…) are
 * tolerated. Everything Ballast uses is checked before anything is written, and a value
 * it cannot honour is refused naming the field rather than dropped.
 *
 * @param service the service ({@code Name})
 * @param id the instance ({@code ID}, by default the name)
 * @param address {@code Address}, or the caller's address when absent
 * @param port {@code Port}
 * @param weight from {@code Weights.Passing} or {@code Meta.weight}; null for the
 * service's default
 * @param metadata {@code Meta} without {@code weight}
 * @param tags {@code Tags}, by Ballast's one rule for tags
 * @param leaseTtl the TTL check's {@code TTL}, or null when the checks Ballast runs keep
 * the lease
 * @param critical whether a check was registered with {@code Status: critical}
 * @param checks the HTTP, TCP and gRPC checks Ballast runs
 */
record ConsulRegistration(ServiceName service, InstanceId id, String address, Port port, Weight weight,
		Map<String, String> metadata, Tags tags, LeaseTtl leaseTtl, boolean critical, List<CheckDefinition> checks) {

	/** Check kinds that Ballast (or a Consul agent) runs, as opposed to TTL checks. */
	private static final List<String> PROBES = List.of("HTTP", "TCP", "GRPC", "UDP", "H2PING", "Args", "Script",
			"DockerContainerID", "AliasService", "AliasNode", "OSService");

	/** Consul's field names, by the meaning {@link CheckRefusal#field()} gives. */
	private static final Map<String, String> CONSUL_FIELDS = Map.of("http", "HTTP", "tcp", "TCP", "grpc", "GRPC",
			"method", "Method", "headers", "Header", "interval", "Interval", "timeout", "Timeout",
			"failuresBeforeCritical", "FailuresBeforeCritical", "successBeforePassing", "SuccessBeforePassing",
			"deregisterAfter", "DeregisterCriticalServiceAfter");

	static ConsulRegistration read(JsonNode body, String callerAddress, CheckTargets targets) {
		if (body == null || !body.isObject()) {
			throw new ConsulRefusal(HttpStatus.BAD_REQUEST,
					"Request decode failed: the body must be a JSON object (a service definition)");
		}
		ServiceName service = name(text(body, "Name"));
		String idText = text(body, "ID");
		InstanceId id = instanceId(idText == null || idText.isEmpty() ? service.value() : idText);
		String addressText = text(body, "Address");
		String address = addressText == null || addressText.isEmpty() ? callerAddress : addressText;
		if (!Address.valid(address)) {
			throw ConsulRefusal.badRequest("Address", "must be " + Address.EXPECTED + "; got " + Quoted.quote(address));
		}
		Port port = port(field(body, "Port"));
		Tags tags = tags(field(body, "Tags"));
		Map<String, String> meta = meta(field(body, "Meta"));
		Weight weight = weight(field(body, "Weights"), meta.remove("weight"));
		Checks checks = checks(body, id, address, port, targets);
		return new ConsulRegistration(service, id, address, port, weight, meta, tags, checks.ttl(), checks.critical(),
				checks.probes());
	}

	/**
	 * A field as Consul finds it: any case, underscores ignored; null when absent or JSON
	 * null. Two spellings of one field ({@code Weights} and {@code weights}) are refused:
	 * which one counts would be a guess.
	 */
	static JsonNode field(JsonNode object, String name) {
		String wanted = folded(name);
		Map.Entry<String, JsonNode> found = null;
		for (Map.Entry<String, JsonNode> entry : object.properties()) {
			if (folded(entry.getKey()).equals(wanted)) {
				if (found != null) {
					throw ConsulRefusal.badRequest(name, "sent twice, as %s and %s; send it once"
						.formatted(Quoted.quote(found.getKey()), Quoted.quote(entry.getKey())));
				}
				found = entry;
			}
		}
		return found == null || found.getValue().isNull() ? null : found.getValue();
	}

	private static String folded(String key) {
		return key.replace("_", "").toLowerCase(Locale.ROOT);
	}

	private static String text(JsonNode object, String name) {
		JsonNode value = field(object, name);
		if (value == null) {
			return null;
		}
		if (!value.isString()) {
			throw ConsulRefusal.badRequest(name, "must be a string; got " + kind(value));
		}
		return value.stringValue();
	}

	private static ServiceName name(String name) {
		if (name == null || name.isEmpty()) {
			throw ConsulRefusal.badRequest("Name", "the service name is required");
		}
		try {
			return ServiceName.of(name);
		}
		catch (RuntimeException ex) {
			throw ConsulRefusal.badRequest("Name", "Ballast service names are lower-case letters, digits and inner "
					+ "hyphens, 1 to 63 characters (DNS label rules); got " + Quoted.quote(name));
		}
	}

	private static InstanceId instanceId(String id) {
		try {
			return InstanceId.of(id);
		}
		catch (RuntimeException ex) {
			throw ConsulRefusal.badRequest("ID",
					"Ballast instance ids are 1 to 128 of A-Z a-z 0-9 . _ : - (the Name when no ID is given); got "
							+ Quoted.quote(id));
		}
	}

	private static Port port(JsonNode port) {
		if (port == null || !port.isIntegralNumber() || !port.canConvertToInt() || !Port.holds(port.intValue())) {
			throw ConsulRefusal.badRequest("Port", "Ballast needs the instance's port, " + Port.EXPECTED + "; got "
					+ (port == null ? "none" : kind(port)));
		}
		return Port.of(port.intValue());
	}

	/**
	 * The tags, by the rule Ballast's own registration applies ({@link Tags}), named as
	 * Consul names fields ({@code Tags[3]}).
	 */
	private static Tags tags(JsonNode tags) {
		if (tags == null) {
			return Tags.NONE;
		}
		if (!tags.isArray()) {
			throw ConsulRefusal.badRequest("Tags", "must be a list of strings; got " + kind(tags));
		}
		List<String> received = new ArrayList<>();
		for (JsonNode tag : tags) {
			if (!tag.isString()) {
				throw ConsulRefusal.badRequest("Tags[" + received.size() + "]", "must be a string; got " + kind(tag));
			}
			received.add(tag.stringValue());
		}
		try {
			return Tags.of(received, "Tags", index -> "Tags[" + index + "]");
		}
		catch (InvalidRequestException ex) {
			FieldError first = ex.errors().getFirst();
			throw ConsulRefusal.badRequest(first.pointer(), first.detail());
		}
	}

	private static Map<String, String> meta(JsonNode meta) {
		Map<String, String> entries = new LinkedHashMap<>();
		if (meta == null) {
			return entries;
		}
		if (!meta.isObject()) {
			throw ConsulRefusal.badRequest("Meta", "must be an object of strings; got " + kind(meta));
		}
		for (Map.Entry<String, JsonNode> entry : meta.properties()) {
			if (!entry.getValue().isString()) {
				throw ConsulRefusal.badRequest("Meta." + entry.getKey(),
						"Meta values must be strings; got " + kind(entry.getValue()));
			}
			entries.put(entry.getKey(), entry.getValue().stringValue());
		}
		return entries;
	}

	/**
	 * The typed weight, read by the one weight reader ({@link WeightReader}):
	 * {@code Weights.Passing} (a JSON integer) or {@code Meta.weight} (only a canonical
	 * decimal), and the two must agree when both are sent.
	 */
	private static Weight weight(JsonNode weights, String metaWeight) {
		Weight fromMeta = metaWeight == null ? null
				: accepted("Meta.weight", WeightReader.readCanonicalText("Meta.weight", metaWeight));
		Weight passing = null;
		if (weights != null) {
			if (!weights.isObject()) {
				throw ConsulRefusal.badRequest("Weights",
						"must be an object {\"Passing\": n, \"Warning\": n}; got " + kind(weights));
			}
			passing = weightField(weights, "Passing");
			weightField(weights, "Warning");
		}
		if (passing != null && fromMeta != null && !passing.equals(fromMeta)) {
			throw ConsulRefusal.badRequest("Weights.Passing", "Weights.Passing (%d) and Meta.weight (\"%d\") disagree; "
				.formatted(passing.value(), fromMeta.value()) + "send one of them");
		}
		return passing != null ? passing : fromMeta;
	}

	private static Weight weightField(JsonNode weights, String name) {
		JsonNode value = field(weights, name);
		return value == null ? null : accepted("Weights." + name, WeightReader.readInteger("Weights." + name, value));
	}

	/**
	 * The weight read, or a refusal in Consul's manner: {@code Invalid Weights.Passing:
	 * must be an integer from 0 to 10000; got the number 1.5}. The reader's refusal
	 * starts with the field name it was given.
	 */
	private static Weight accepted(String field, WeightReading reading) {
		return switch (reading) {
			case Exact exact -> exact.weight();
			case Normalized normalized -> normalized.weight();
			case Refused refused ->
				throw ConsulRefusal.badRequest(field, refused.detail().substring(field.length() + 1));
		};
	}

	/**
	 * The checks: at most one TTL check, which becomes the instance's lease, and HTTP,
	 * TCP and gRPC checks, which Ballast runs itself ({@link CheckDefinition}); at least
	 * one of either.
	 */
	private static Checks checks(JsonNode body, InstanceId id, String address, Port port, CheckTargets targets) {
		List<JsonNode> checks = new ArrayList<>();
		List<String> fields = new ArrayList<>();
		JsonNode one = field(body, "Check");
		if (one != null) {
			checks.add(one);
			fields.add("Check");
		}
		JsonNode many = field(body, "Checks");
		if (many != null) {
			if (!many.isArray()) {
				throw ConsulRefusal.badRequest("Checks", "must be a list of checks; got " + kind(many));
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
				throw ConsulRefusal.badRequest(field, "must be an object; got " + kind(check));
			}
			critical |= critical(check, field);
			String ttlText = text(check, "TTL");
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
		return new Checks(ttl, critical, probes);
	}

	private static boolean critical(JsonNode check, String field) {
		String status = text(check, "Status");
		if (status != null && !status.isEmpty() && !List.of("passing", "warning", "critical").contains(status)) {
			throw ConsulRefusal.badRequest(field + ".Status",
					"must be passing, warning or critical; got " + Quoted.quote(status));
		}
		String after = text(check, "DeregisterCriticalServiceAfter");
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
		String checkId = text(check, "CheckID");
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
		String interval = text(check, "Interval");
		Duration timeout = duration(check, field, "Timeout");
		String after = text(check, "DeregisterCriticalServiceAfter");
		try {
			CheckDefinition definition = CheckDefinition.of(kind, text(check, kinds.getFirst()), text(check, "Method"),
					headers(check, field), Boolean.TRUE.equals(bool(check, field, "TLSSkipVerify")),
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
		JsonNode value = field(check, name);
		return value != null && !(value.isString() && value.stringValue().isEmpty())
				&& !(value.isArray() && value.isEmpty());
	}

	private static Duration duration(JsonNode check, String field, String name) {
		String text = text(check, name);
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
		JsonNode value = field(check, name);
		if (value == null) {
			return null;
		}
		if (!value.isBoolean()) {
			throw ConsulRefusal.badRequest(field + "." + name, "must be true or false; got " + kind(value));
		}
		return value.booleanValue();
	}

	private static int count(JsonNode check, String field, String name) {
		JsonNode value = field(check, name);
		if (value == null) {
			return 0;
		}
		if (!value.isIntegralNumber() || !value.canConvertToInt()) {
			throw ConsulRefusal.badRequest(field + "." + name, "must be an integer; got " + kind(value));
		}
		return value.intValue();
	}

	/** {@code Header}: {@code {"Name": ["value", …]}}, as Consul takes it. */
	private static Map<String, List<String>> headers(JsonNode check, String field) {
		JsonNode header = field(check, "Header");
		Map<String, List<String>> headers = new LinkedHashMap<>();
		if (header == null) {
			return headers;
		}
		if (!header.isObject()) {
			throw ConsulRefusal.badRequest(field + ".Header",
					"must be an object of lists of strings, {\"Name\": [\"value\"]}; got " + kind(header));
		}
		for (Map.Entry<String, JsonNode> entry : header.properties()) {
			if (!entry.getValue().isArray()) {
				throw ConsulRefusal.badRequest(field + ".Header." + entry.getKey(),
						"must be a list of strings; got " + kind(entry.getValue()));
			}
			List<String> values = new ArrayList<>();
			for (JsonNode value : entry.getValue()) {
				if (!value.isString()) {
					throw ConsulRefusal.badRequest(field + ".Header." + entry.getKey(),
							"must be a list of strings; got " + kind(value));
				}
				values.add(value.stringValue());
			}
			headers.put(entry.getKey(), values);
		}
		return headers;
	}

	private static String kind(JsonNode value) {
		if (value.isString()) {
			return "the string " + Quoted.quote(value.stringValue());
		}
		String shown = value.toString();
		return (value.isNumber() ? "the number "
				: value.isBoolean() ? "" : value.isArray() ? "the list " : value.isObject() ? "the object " : "")
				+ (shown.length() > 40 ? shown.substring(0, 40) + "…" : shown);
	}

	/**
	 * @param ttl the TTL check's lease, or null when the checks Ballast runs keep it
	 * @param critical whether a check was registered with {@code Status: critical}
	 * @param probes the checks Ballast runs
	 */
	private record Checks(LeaseTtl ttl, boolean critical, List<CheckDefinition> probes) {
	}

}

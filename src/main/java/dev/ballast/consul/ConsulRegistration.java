package dev.ballast.consul;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ballast.registry.Address;
import dev.ballast.registry.CheckDefinition;
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
		ConsulChecks checks = ConsulChecks.read(body, id, address, port, targets);
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

	static String text(JsonNode object, String name) {
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

	/** A received JSON value, as refusals show it. */
	static String kind(JsonNode value) {
		if (value.isString()) {
			return "the string " + Quoted.quote(value.stringValue());
		}
		String shown = value.toString();
		return (value.isNumber() ? "the number "
				: value.isBoolean() ? "" : value.isArray() ? "the list " : value.isObject() ? "the object " : "")
				+ (shown.length() > 40 ? shown.substring(0, 40) + "…" : shown);
	}

}

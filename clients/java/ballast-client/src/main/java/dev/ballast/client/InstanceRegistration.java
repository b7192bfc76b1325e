package dev.ballast.client;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What an instance tells the registry about itself when it registers ({@code PUT
 * /v1/services/{service}/instances/{id}}). An InstanceRegistration that exists is valid
 * by the registry's rules, so that a mistake in an application's settings is refused at
 * start-up, naming the field, not by the registry later.
 *
 * @param service the service name, a lower-case DNS label such as {@code payments}
 * @param id the instance id, stable across restarts, such as {@code 10.0.0.5:8080}
 * @param address the host name or IP address callers connect to
 * @param port the port callers connect to, from 1 to 65535
 * @param weight the configured weight from 0 to 10000, or {@code null} for the service's
 * default
 * @param zone the failure domain, or {@code null} for none
 * @param metadata labels; the key {@code weight} (any case) and keys under
 * {@code ballast.} are refused, as the registry refuses them
 * @param tags labels kept in order, at most 32
 * @param leaseTtlSeconds how long the lease lasts without a heartbeat, 5 to 300, or
 * {@code null} for the service's default
 */
public record InstanceRegistration(String service, String id, String address, int port, Integer weight, String zone,
		Map<String, String> metadata, List<String> tags, Integer leaseTtlSeconds) {

	private static final Pattern SERVICE = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

	private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

	private static final Pattern ADDRESS = Pattern.compile("[A-Za-z0-9.:_%\\[\\]-]{1,253}");

	private static final Pattern ZONE = Pattern.compile("[A-Za-z0-9._-]{1,63}");

	private static final Pattern METADATA_KEY = Pattern.compile("[A-Za-z0-9._/-]{1,63}");

	/**
	 * @throws IllegalArgumentException naming the first field that the registry would
	 * refuse, what it must be and what it is
	 */
	public InstanceRegistration {
		require("service", service, SERVICE, "a lower-case DNS label of 1 to 63 of a-z 0-9 -");
		require("id", id, ID, "1 to 128 of A-Z a-z 0-9 . _ : -");
		require("address", address, ADDRESS, "a host name or IP address of 1 to 253 characters");
		within("port", port, 1, 65_535);
		if (weight != null) {
			within("weight", weight, 0, WatchedInstance.MAX_WEIGHT);
		}
		if (zone != null) {
			require("zone", zone, ZONE, "1 to 63 of A-Z a-z 0-9 . _ -");
		}
		metadata = Map.copyOf(Objects.requireNonNull(metadata, "metadata"));
		for (Map.Entry<String, String> entry : metadata.entrySet()) {
			String key = entry.getKey();
			require("metadata key", key, METADATA_KEY, "1 to 63 of A-Z a-z 0-9 . _ / -");
			if (key.toLowerCase(Locale.ROOT).equals("weight") || key.startsWith("ballast.")) {
				throw new IllegalArgumentException("metadata key " + key
						+ " is reserved: the weight is a typed field, and keys under ballast. are the registry's");
			}
			if (entry.getValue().length() > 512) {
				throw new IllegalArgumentException("metadata." + key + " must be at most 512 characters");
			}
		}
		tags = List.copyOf(Objects.requireNonNull(tags, "tags"));
		if (tags.size() > 32) {
			throw new IllegalArgumentException("at most 32 tags; got " + tags.size());
		}
		if (leaseTtlSeconds != null) {
			within("leaseTtlSeconds", leaseTtlSeconds, 5, 300);
		}
	}

	/** The registration's JSON body; the service and id travel in the path. */
	String toJson() {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("address", address);
		body.put("port", port);
		if (weight != null) {
			body.put("weight", weight);
		}
		if (zone != null) {
			body.put("zone", zone);
		}
		body.put("metadata", new TreeMap<>(metadata));
		if (!tags.isEmpty()) {
			body.put("tags", tags);
		}
		if (leaseTtlSeconds != null) {
			body.put("leaseTtlSeconds", leaseTtlSeconds);
		}
		return Json.write(body);
	}

	private static void require(String name, String value, Pattern pattern, String expected) {
		if (value == null || !pattern.matcher(value).matches()) {
			throw new IllegalArgumentException(name + " must be " + expected + "; got "
					+ ((value == null) ? "nothing" : JsonFields.describe(value)));
		}
	}

	private static void within(String name, int value, int min, int max) {
		if (value < min || value > max) {
			throw new IllegalArgumentException(
					name + " must be an integer from " + min + " to " + max + "; got " + value);
		}
	}

}

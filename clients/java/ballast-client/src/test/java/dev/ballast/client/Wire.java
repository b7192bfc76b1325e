package dev.ballast.client;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Writes the registry's side of the wire contract: instance JSON and SSE events. */
final class Wire {

	private Wire() {
	}

	/** An instance of weight 100 as the registry writes it. */
	static String instance(String service, String id, long revision) {
		return instance(service, id, "100", revision);
	}

	/**
	 * An instance whose {@code weight} and {@code effectiveWeight} are both the raw JSON
	 * {@code weight}, such as {@code 5} or {@code "0"}.
	 */
	static String instance(String service, String id, String weight, long revision) {
		return """
				{"service":"%s","id":"%s","address":"10.0.0.5","port":8080,"zone":"az-1","weight":%s,\
				"effectiveWeight":%s,"routable":true,"mode":"SERVING","health":"PASSING",\
				"metadata":{"version":"2.4.1"},"leaseTtlSeconds":30,"leaseExpiresAt":"2026-11-30T10:00:30Z",\
				"revision":%d}""".formatted(service, id, weight, weight, revision);
	}

	static String snapshot(String service, long revision, String... instances) {
		return "{\"service\":\"%s\",\"revision\":%d,\"instances\":[%s]}".formatted(service, revision,
				String.join(",", instances));
	}

	static String removal(String service, String id, long revision) {
		return "{\"service\":\"%s\",\"id\":\"%s\",\"revision\":%d}".formatted(service, id, revision);
	}

	/**
	 * One SSE event; a data payload with line breaks is split over several data lines.
	 */
	static String event(String type, String id, String data) {
		String dataLines = Arrays.stream(data.split("\n", -1))
			.map((line) -> "data: " + line + "\n")
			.collect(Collectors.joining());
		return "event: " + type + "\nid: " + id + "\n" + dataLines + "\n";
	}

	static String idOnly(String id) {
		return "id: " + id + "\n\n";
	}

	static String reconnect(String reason) {
		return "event: reconnect\ndata: {\"reason\":\"" + reason + "\"}\n\n";
	}

}

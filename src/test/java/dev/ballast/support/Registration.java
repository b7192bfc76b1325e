package dev.ballast.support;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A registration body for {@code PUT /v1/services/{service}/instances/{id}}, written as
 * JSON with its members in the order they were given, so that a test reads like the body
 * it sends: {@code Registration.at("h", 80).weight(10)} is
 * {@code {"address":"h","port":80,"weight":10}}.
 */
public final class Registration {

	private final List<String> members;

	private Registration(List<String> members) {
		this.members = members;
	}

	/** The two members every registration needs. */
	public static Registration at(String address, int port) {
		return new Registration(List.of()).member("address", string(address)).member("port", Integer.toString(port));
	}

	public Registration weight(int weight) {
		return member("weight", Integer.toString(weight));
	}

	public Registration zone(String zone) {
		return member("zone", string(zone));
	}

	public Registration leaseTtlSeconds(int seconds) {
		return member("leaseTtlSeconds", Integer.toString(seconds));
	}

	/** Metadata of string values, from keys and values in turn; none gives {@code {}}. */
	public Registration metadata(String... keysAndValues) {
		if (keysAndValues.length % 2 != 0) {
			throw new IllegalArgumentException(
					"metadata needs keys and values in pairs; got " + keysAndValues.length + " strings");
		}
		List<String> pairs = new ArrayList<>();
		for (int i = 0; i < keysAndValues.length; i += 2) {
			pairs.add(string(keysAndValues[i]) + ":" + string(keysAndValues[i + 1]));
		}
		return member("metadata", pairs.stream().collect(Collectors.joining(",", "{", "}")));
	}

	/** Tags as a list of strings, in the order given; none gives {@code []}. */
	public Registration tags(String... tags) {
		return member("tags",
				java.util.Arrays.stream(tags).map(Registration::string).collect(Collectors.joining(",", "[", "]")));
	}

	/**
	 * A member whose value is given as raw JSON, for what the methods above do not write:
	 * a weight sent as a string, metadata built elsewhere.
	 */
	public Registration member(String name, String json) {
		List<String> more = new ArrayList<>(members);
		more.add(string(name) + ":" + json);
		return new Registration(List.copyOf(more));
	}

	public String json() {
		return members.stream().collect(Collectors.joining(",", "{", "}"));
	}

	@Override
	public String toString() {
		return json();
	}

	private static String string(String text) {
		StringBuilder out = new StringBuilder("\"");
		for (char c : text.toCharArray()) {
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				default -> out.append(c < 0x20 ? "\\u%04x".formatted((int) c) : String.valueOf(c));
			}
		}
		return out.append('"').toString();
	}

}

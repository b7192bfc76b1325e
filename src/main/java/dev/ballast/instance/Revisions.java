package dev.ballast.instance;

import java.util.Arrays;

/** Entity tags: an instance's ETag is the service revision of its last change. */
final class Revisions {

	private Revisions() {
	}

	static String etag(long revision) {
		return "\"" + revision + "\"";
	}

	/**
	 * Whether an {@code If-Match} header value (RFC 9110 list, {@code *} or tags)
	 * matches.
	 */
	static boolean matches(String ifMatch, long revision) {
		String current = etag(revision);
		return Arrays.stream(ifMatch.split(","))
			.map(String::strip)
			.map(tag -> tag.startsWith("W/") ? tag.substring(2) : tag)
			.anyMatch(tag -> tag.equals("*") || tag.equals(current));
	}

}

package dev.ballast.instance;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

import dev.ballast.web.BadParameterException;

/** Entity tags: an instance's ETag is the service revision of its last change. */
final class Revisions {

	/** An entity tag as RFC 9110 writes one: quoted, optionally weak. */
	private static final Pattern ENTITY_TAG = Pattern.compile("(W/)?\"[\\x21\\x23-\\x7E\\x80-\\xFF]*\"");

	private Revisions() {
	}

	static String etag(long revision) {
		return "\"" + revision + "\"";
	}

	/**
	 * Whether an {@code If-Match} header value ({@code *} or a list of entity tags)
	 * matches. A weak tag ({@code W/"2"}) is compared by its opaque part, as it always
	 * was here: an instance has one representation per revision.
	 * @throws BadParameterException when it is not one: an unquoted {@code 2} would
	 * otherwise be a tag that can never match, answered 412 "changed since 2" about an
	 * instance still at revision 2
	 */
	static boolean matches(String ifMatch, long revision) {
		List<String> tags = Arrays.stream(ifMatch.split(",", -1)).map(String::strip).toList();
		if (tags.equals(List.of("*"))) {
			return true;
		}
		for (String tag : tags) {
			if (!ENTITY_TAG.matcher(tag).matches()) {
				throw new BadParameterException("If-Match",
						"If-Match must be * or entity tags as the ETag header gives them, quotes included (\"%s\"); got %s"
							.formatted(tag.replaceFirst("^W/", "").replace("\"", ""), shown(ifMatch)));
			}
		}
		String current = etag(revision);
		return tags.stream().map(tag -> tag.startsWith("W/") ? tag.substring(2) : tag).anyMatch(current::equals);
	}

	private static String shown(String ifMatch) {
		String cut = ifMatch.length() > 40 ? ifMatch.substring(0, 40) + "…" : ifMatch;
		return "the header value " + cut.codePoints()
			.mapToObj(c -> c < 0x20 || c == 0x7F ? "\\u%04x".formatted(c) : Character.toString(c))
			.reduce("", String::concat);
	}

}

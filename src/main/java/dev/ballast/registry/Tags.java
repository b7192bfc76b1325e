package dev.ballast.registry;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

import dev.ballast.web.FieldError;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.Quoted;

/**
 * An instance's tags: labels in the order the registrant gave them, as Consul's clients
 * attach them (Spring Cloud Consul's {@code discovery.tags}, Traefik's
 * {@code traefik.*}). A tag is only a label: {@code weight=0} is text, and no tag ever
 * reaches the typed weight.
 *
 * <p>
 * One rule for every door (Ballast's registration and Consul's): at most
 * {@value #MAX_TAGS} tags, each 1 to {@value #MAX_LENGTH} characters, printable (no
 * control, format, line or paragraph separator, surrogate, private-use or unassigned
 * character). A tag sent twice is kept once, at its first place: tags are a set to every
 * query (Consul answers the same for {@code ["a","a"]} as for {@code ["a"]}), so nothing
 * is lost, and a Consul client that repeats a tag is not refused where Consul accepts it.
 * Tags under {@value #RESERVED} are refused, as such metadata keys are: they are
 * Ballast's words in queries ({@code ballast.zone=<zone>} asks a Consul read for a zone's
 * view), and an instance carrying one would make a query mean two things.
 *
 * @param values the tags, distinct, in the order received
 */
public record Tags(List<String> values) {

	public static final int MAX_TAGS = 32;

	public static final int MAX_LENGTH = 128;

	public static final Tags NONE = new Tags(List.of());

	/** The prefix, compared without case, of the tags Ballast keeps for its own words. */
	public static final String RESERVED = "ballast.";

	/** Refusals named at most: a body of thousands of bad tags gets a short answer. */
	private static final int MAX_NAMED = 8;

	public Tags {
		values = List.copyOf(values);
	}

	/**
	 * The tags as received, checked.
	 * @param received the tags, possibly {@code null} for none
	 * @param list how the door names the list ({@code /tags}, {@code Tags})
	 * @param tag how the door names the tag at an index ({@code /tags/3},
	 * {@code Tags[3]})
	 * @throws InvalidRequestException naming every refused tag
	 */
	public static Tags of(List<String> received, String list, IntFunction<String> tag) {
		if (received == null) {
			return NONE;
		}
		List<FieldError> errors = new ArrayList<>();
		if (received.size() > MAX_TAGS) {
			errors.add(new FieldError(list,
					"an instance has at most %d tags; got %d".formatted(MAX_TAGS, received.size())));
		}
		for (int i = 0; i < received.size() && errors.size() < MAX_NAMED; i++) {
			String problem = problem(received.get(i));
			if (problem != null) {
				errors.add(new FieldError(tag.apply(i), problem));
			}
		}
		if (!errors.isEmpty()) {
			throw new InvalidRequestException(errors);
		}
		return new Tags(List.copyOf(new LinkedHashSet<>(received)));
	}

	/** What is wrong with one tag, or null when nothing is. */
	private static String problem(String tag) {
		if (tag == null) {
			return "a tag is a string; got null";
		}
		int length = tag.codePointCount(0, tag.length());
		if (length < 1 || length > MAX_LENGTH) {
			return "a tag has 1 to %d characters; got %d".formatted(MAX_LENGTH, length);
		}
		int unprintable = tag.codePoints().filter(Tags::unprintable).findFirst().orElse(-1);
		if (unprintable >= 0) {
			return "a tag holds printable characters only; got U+%04X in %s".formatted(unprintable,
					Quoted.quote(tag.codePoints()
						.map(c -> unprintable(c) ? '?' : c)
						.collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
						.toString()));
		}
		if (reserved(tag)) {
			return "tags under \"%s\" are reserved for queries; got %s".formatted(RESERVED, Quoted.quote(tag));
		}
		return null;
	}

	/** Whether {@code tag} is one of Ballast's words rather than a label. */
	public static boolean reserved(String tag) {
		return tag.regionMatches(true, 0, RESERVED, 0, RESERVED.length());
	}

	private static boolean unprintable(int codePoint) {
		return switch (Character.getType(codePoint)) {
			case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
					Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED ->
				true;
			default -> false;
		};
	}

	/**
	 * Whether {@code tags} hold every one of {@code wanted}, compared without case, as
	 * Consul 1.x's {@code ?tag=} compares them (both lower-cased): the one tag filter of
	 * Ballast's list and of the Consul surface.
	 * @param tags an instance's tags
	 * @param wanted the tags asked for; none matches every instance
	 */
	public static boolean carryAll(List<String> tags, List<String> wanted) {
		if (wanted.isEmpty()) {
			return true;
		}
		Set<String> lower = tags.stream().map(tag -> tag.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
		return wanted.stream().allMatch(tag -> lower.contains(tag.toLowerCase(Locale.ROOT)));
	}

}

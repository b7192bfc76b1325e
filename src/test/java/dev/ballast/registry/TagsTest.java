package dev.ballast.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import dev.ballast.web.InvalidRequestException;
import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.anyChars;
import static dev.ballast.support.Properties.charsBetween;
import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * The one rule for tags, at both doors: what is kept, what is refused and how it is
 * named.
 */
class TagsTest {

	/**
	 * The oracle: Unicode's categories as java.util.regex names them, not as the rule
	 * lists them.
	 */
	private static final Pattern UNPRINTABLE = Pattern.compile("[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\p{Co}\\p{Cn}]");

	private static Tags ballast(List<String> tags) {
		return Tags.of(tags, "/tags", index -> "/tags/" + index);
	}

	@Test
	void keepsTheOrderReceivedAndATagSentTwiceOnceAtItsFirstPlace() {
		assertThat(ballast(List.of("v2", "traefik.enable=true", "v2", "a")).values()).containsExactly("v2",
				"traefik.enable=true", "a");
		assertThat(ballast(null)).isEqualTo(Tags.NONE);
		assertThat(ballast(List.of())).isEqualTo(Tags.NONE);
	}

	@Test
	void aTagThatLooksLikeAWeightIsOnlyText() {
		assertThat(ballast(List.of("weight=0", "0")).values()).containsExactly("weight=0", "0");
	}

	@Test
	void acceptsThirtyTwoTagsOfAHundredAndTwentyEightCharactersAndNotOneMore() {
		List<String> full = new ArrayList<>();
		for (int i = 0; i < 32; i++) {
			full.add(("%03d".formatted(i)).repeat(43).substring(0, 128));
		}
		assertThat(ballast(full).values()).hasSize(32);

		List<String> over = new ArrayList<>(full);
		over.add("one more");
		assertThatThrownBy(() -> ballast(over)).isInstanceOfSatisfying(InvalidRequestException.class,
				ex -> assertThat(ex.errors().getFirst().pointer()).isEqualTo("/tags"));
		assertThatThrownBy(() -> ballast(List.of("a", "x".repeat(129)))).isInstanceOfSatisfying(
				InvalidRequestException.class, ex -> assertThat(ex.errors().getFirst().pointer()).isEqualTo("/tags/1"));
	}

	@Test
	void countsCharactersNotUtf16Units() {
		// 128 emoji are 256 UTF-16 units: still 128 characters, as PostgreSQL counts
		// them.
		assertThat(ballast(List.of("😀".repeat(128))).values()).hasSize(1);
		assertThatThrownBy(() -> ballast(List.of("😀".repeat(129)))).isInstanceOf(InvalidRequestException.class);
	}

	@Test
	void namesEveryRefusedTagTheWayItsDoorNamesFields() {
		List<String> bad = new ArrayList<>(List.of("ok"));
		bad.add("");
		bad.add("tab\there");
		bad.add(null);
		assertThatThrownBy(() -> Tags.of(bad, "Tags", index -> "Tags[" + index + "]")).isInstanceOfSatisfying(
				InvalidRequestException.class, ex -> assertThat(ex.errors()).extracting(error -> error.pointer())
					.containsExactly("Tags[1]", "Tags[2]", "Tags[3]"));
		assertThatThrownBy(() -> ballast(List.of("tab\there"))).hasMessageContaining("U+0009");
	}

	@Test
	void acceptsATagExactlyWhenItHasOneTo128PrintableCharacters() {
		qt().forAll(anyChars(6).mix(charsBetween(' ', '~', 0, 140), 50)).checkAssert(tag -> {
			int length = tag.codePointCount(0, tag.length());
			boolean printable = !UNPRINTABLE.matcher(tag).find();
			boolean accepted;
			try {
				accepted = ballast(List.of(tag)).values().equals(List.of(tag));
			}
			catch (InvalidRequestException ex) {
				accepted = false;
			}
			assertThat(accepted).as("%s", tag.codePoints().mapToObj(Integer::toHexString).toList())
				.isEqualTo(printable && length >= 1 && length <= 128);
		});
	}

	@Test
	void keepsEveryDistinctTagOnceInFirstSeenOrder() {
		qt().forAll(lists().of(integers().between(0, 9)).ofSizeBetween(0, 32)).checkAssert(picks -> {
			List<String> received = picks.stream().map(pick -> "t" + pick).toList();
			List<String> expected = new ArrayList<>();
			for (String tag : received) {
				if (expected.stream().noneMatch(tag::equals)) {
					expected.add(tag);
				}
			}
			assertThat(ballast(received).values()).isEqualTo(expected);
		});
	}

}

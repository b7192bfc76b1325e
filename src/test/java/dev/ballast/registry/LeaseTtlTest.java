package dev.ballast.registry;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/** The lease TTL's one range, 5 to 300 seconds, at its edges. */
class LeaseTtlTest {

	@Test
	void existsExactlyFromFiveToThreeHundredSeconds() {
		qt().forAll(withEdges(integers().between(-1_000, 1_000), Integer.MIN_VALUE, 4, 5, 300, 301, Integer.MAX_VALUE))
			.checkAssert(seconds -> {
				if (seconds >= 5 && seconds <= 300) {
					assertThat(LeaseTtl.ofSeconds(seconds).duration()).isEqualTo(Duration.ofSeconds(seconds));
				}
				else {
					assertThatIllegalArgumentException().isThrownBy(() -> LeaseTtl.ofSeconds(seconds))
						.withMessage("a lease TTL must be an integer from 5 to 300 seconds; got " + seconds);
				}
			});
	}

	/**
	 * A Consul TTL check's {@code TTL} becomes the lease only as whole seconds in range.
	 */
	@Test
	void aDurationIsATtlOnlyAsWholeSecondsInRange() {
		qt().forAll(
				withEdges(longs().between(-1_000_000, 400_000), 4_999L, 5_000L, 5_001L, 300_000L, 300_001L, 301_000L))
			.checkAssert(millis -> {
				boolean whole = millis % 1000 == 0 && millis >= 5_000 && millis <= 300_000;
				assertThat(LeaseTtl.of(Duration.ofMillis(millis)))
					.isEqualTo(whole ? Optional.of(LeaseTtl.ofSeconds((int) (millis / 1000))) : Optional.empty());
			});
		assertThat(LeaseTtl.of(Duration.ofSeconds(30).plusNanos(1))).isEmpty();
	}

}

package dev.ballast.registry;

import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.quicktheories.generators.SourceDSL.integers;

/** The port's one range, 1 to 65535, at its edges. */
class PortTest {

	@Test
	void existsExactlyFromOneTo65535AndReadsAsItsDecimal() {
		qt().forAll(withEdges(integers().between(-100_000, 100_000), Integer.MIN_VALUE, 0, 1, 65_535, 65_536,
				Integer.MAX_VALUE))
			.checkAssert(value -> {
				assertThat(Port.holds(value)).isEqualTo(value >= 1 && value <= 65_535);
				if (value >= 1 && value <= 65_535) {
					assertThat(Port.of(value).toString()).isEqualTo(Integer.toString(value));
				}
				else {
					assertThatIllegalArgumentException().isThrownBy(() -> Port.of(value))
						.withMessage("a port must be an integer from 1 to 65535; got " + value);
				}
			});
		assertThat(Port.holds(65_535L + (1L << 32))).isFalse();
	}

}

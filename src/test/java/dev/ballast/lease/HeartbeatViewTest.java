package dev.ballast.lease;

import java.time.Instant;

import dev.ballast.registry.Mode;
import dev.ballast.support.RegistryTest;
import dev.ballast.weight.Weight;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import tools.jackson.databind.ObjectMapper;

import org.springframework.beans.factory.annotation.Autowired;

import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * The heartbeat's hand-written JSON is, byte for byte, what the application's mapper
 * writes for the same view, whatever the mode, weight and expiry (whole seconds and every
 * sub-second precision the clock can give).
 */
@RegistryTest
class HeartbeatViewTest {

	@Autowired
	ObjectMapper json;

	@Test
	void writesWhatTheMapperWrites() {
		qt().forAll(arbitrary().enumValues(Mode.class), integers().between(Weight.MIN, Weight.MAX), instants())
			.checkAssert((mode, weight, expiry) -> {
				HeartbeatView view = new HeartbeatView(mode, Weight.of(weight), expiry);
				assertThat(new String(view.json())).isEqualTo(json.writeValueAsString(view));
			});
	}

	/**
	 * Up to 2100, truncated to whole seconds, milliseconds, microseconds, or not at all.
	 */
	private static Gen<Instant> instants() {
		return longs().between(0, 4_102_444_800L)
			.zip(integers().between(0, 999_999_999), integers().between(0, 3), (seconds, nanos, precision) -> {
				int step = new int[] { 1_000_000_000, 1_000_000, 1_000, 1 }[precision];
				return Instant.ofEpochSecond(seconds, nanos / step * step);
			});
	}

}

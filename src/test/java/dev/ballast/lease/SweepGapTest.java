package dev.ballast.lease;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SweepGapTest {

	private static final Instant T = Instant.parse("2026-11-30T10:00:00Z");

	private static final Duration INTERVAL = Duration.ofSeconds(1);

	private static final Duration TOLERANCE = Duration.ofSeconds(2);

	@Test
	void aRegularTickIsNoOutage() {
		assertThat(SweepGap.outage(T, T.plusSeconds(1), INTERVAL, TOLERANCE)).isZero();
		assertThat(SweepGap.outage(T, T.plusSeconds(3), INTERVAL, TOLERANCE)).isZero();
	}

	@Test
	void aGapBeyondIntervalAndToleranceIsAnOutageOfAllButOneInterval() {
		assertThat(SweepGap.outage(T, T.plusSeconds(3).plusMillis(1), INTERVAL, TOLERANCE))
			.isEqualTo(Duration.ofMillis(2001));
		assertThat(SweepGap.outage(T, T.plusSeconds(600), INTERVAL, TOLERANCE)).isEqualTo(Duration.ofSeconds(599));
	}

	@Test
	void theFirstTickAndAClockGoingBackAreNoOutage() {
		assertThat(SweepGap.outage(null, T, INTERVAL, TOLERANCE)).isZero();
		assertThat(SweepGap.outage(T, T.minusSeconds(600), INTERVAL, TOLERANCE)).isZero();
	}

}

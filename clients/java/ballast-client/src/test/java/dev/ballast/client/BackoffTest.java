package dev.ballast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.random.RandomGenerator;
import static dev.ballast.client.Properties.qt;
import static dev.ballast.client.Properties.withEdges;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

class BackoffTest {

	private static final Duration BASE = Duration.ofMillis(100);

	private static final Duration MAX = Duration.ofSeconds(10);

	/** What {@code nextDouble()} returns: from 0 inclusive to 1 exclusive. */
	private static final Gen<Double> DRAWS = withEdges(doubles().between(0, Math.nextDown(1.0)), 0.0, Double.MIN_VALUE,
			0.5, Math.nextDown(1.0));

	private static final Gen<Integer> FAILURES = withEdges(integers().between(0, 12), 0, 12);

	@Test
	void doublesFromTheBaseUpToTheMaximum() {
		Backoff backoff = new Backoff(BASE, MAX, fixed(0.5));

		assertThat(delays(backoff, 10)).containsExactly(100L, 200L, 400L, 800L, 1600L, 3200L, 6400L, 10_000L, 10_000L,
				10_000L);
	}

	@Test
	void aResetStartsAgainFromTheBase() {
		Backoff backoff = new Backoff(BASE, MAX, fixed(0.5));
		delays(backoff, 5);

		backoff.reset();

		assertThat(delays(backoff, 2)).containsExactly(100L, 200L);
	}

	@Test
	void aRetryFieldReplacesTheBase() {
		Backoff backoff = new Backoff(BASE, MAX, fixed(0.5));

		backoff.base(Duration.ofMillis(1500));

		assertThat(delays(backoff, 3)).containsExactly(1500L, 3000L, 6000L);
	}

	@Test
	void aRetryOfZeroStillGrows() {
		Backoff backoff = new Backoff(BASE, MAX, fixed(0.5));

		backoff.base(Duration.ZERO);

		assertThat(backoff.afterFailure()).isPositive();
		assertThat(backoff.afterFailure()).isGreaterThan(Duration.ofNanos(1_500_000));
	}

	@Test
	void aRetryAboveTheMaximumIsCapped() {
		Backoff backoff = new Backoff(BASE, MAX, fixed(0.5));

		backoff.base(Duration.ofDays(365_000));

		assertThat(delays(backoff, 40)).containsOnly(10_000L);
	}

	@Test
	void spreadsEveryDelayByHalfEitherWay() {
		qt().forAll(DRAWS, FAILURES).checkAssert((draw, failuresBefore) -> {
			Backoff backoff = new Backoff(BASE, MAX, fixed(draw));
			delays(backoff, failuresBefore);
			Duration unspread = Duration.ofMillis(Math.min(100L << failuresBefore, 10_000));

			assertThat(backoff.afterFailure()).isBetween(unspread.dividedBy(2), unspread.multipliedBy(3).dividedBy(2));
		});
	}

	@Test
	void aRequestedReconnectWaitsAtMostTheBase() {
		qt().forAll(DRAWS, FAILURES).checkAssert((draw, failuresBefore) -> {
			Backoff backoff = new Backoff(BASE, MAX, fixed(draw));
			delays(backoff, failuresBefore);

			assertThat(backoff.afterRequest()).isBetween(Duration.ZERO, BASE);
		});
	}

	private static long[] delays(Backoff backoff, int count) {
		long[] delays = new long[count];
		for (int i = 0; i < count; i++) {
			delays[i] = backoff.afterFailure().toMillis();
		}
		return delays;
	}

	/** A generator whose every draw is {@code value}: 0.5 makes the spread factor 1. */
	private static RandomGenerator fixed(double value) {
		return new RandomGenerator() {

			@Override
			public long nextLong() {
				throw new UnsupportedOperationException("only nextDouble is drawn");
			}

			@Override
			public double nextDouble() {
				return value;
			}

		};
	}

}

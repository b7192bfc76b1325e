package dev.ballast.lease;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class LeaseTest {

	private static final Instant RENEWED = Instant.parse("2026-11-30T10:00:00Z");

	private final Lease lease = new Lease(RENEWED, Duration.ofSeconds(30));

	@Test
	void expiresExactlyTtlAfterTheLastRenewal() {
		assertThat(lease.expiresAt()).isEqualTo(Instant.parse("2026-11-30T10:00:30Z"));
		assertThat(lease.expiredAt(lease.expiresAt().minusMillis(1))).isFalse();
		assertThat(lease.expiredAt(lease.expiresAt())).isFalse();
		assertThat(lease.expiredAt(lease.expiresAt().plusMillis(1))).isTrue();
	}

	@Test
	void holdsUntilItsTtlAndNotAMomentLonger() {
		// The offsets that matter sit at the TTL itself, which depends on the TTL drawn.
		qt().forAll(withEdges(integers().between(5, 300), 5, 300),
				withEdges(longs().between(-400_000, 400_000), -400_000L, -1L, 0L, 1L, 400_000L),
				integers().between(-1, 1), integers().between(0, 3))
			.checkAssert((ttlSeconds, drawn, nearTtl, pick) -> {
				long offsetMillis = pick == 0 ? ttlSeconds * 1000L + nearTtl : drawn;
				Lease any = new Lease(RENEWED, Duration.ofSeconds(ttlSeconds));
				Instant now = RENEWED.plusMillis(offsetMillis);

				assertThat(any.expiredAt(now)).as("offset %d ms", offsetMillis)
					.isEqualTo(offsetMillis > ttlSeconds * 1000L);
			});
	}

}

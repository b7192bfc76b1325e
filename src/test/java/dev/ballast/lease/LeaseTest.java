package dev.ballast.lease;

import java.time.Duration;
import java.time.Instant;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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

	@Property
	void holdsUntilItsTtlAndNotAMomentLonger(@ForAll @IntRange(min = 5, max = 300) int ttlSeconds,
			@ForAll @LongRange(min = -400_000, max = 400_000) long offsetMillis) {
		Lease any = new Lease(RENEWED, Duration.ofSeconds(ttlSeconds));
		Instant now = RENEWED.plusMillis(offsetMillis);

		assertThat(any.expiredAt(now)).isEqualTo(offsetMillis > ttlSeconds * 1000L);
	}

}

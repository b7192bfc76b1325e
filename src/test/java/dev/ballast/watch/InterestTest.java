package dev.ballast.watch;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class InterestTest {

	final AtomicLong now = new AtomicLong(100);

	final Interest interest = new Interest(now::get);

	@Test
	void isForgottenOnlyAfterBeingUnwantedForTheTimeout() {
		interest.acquire("s");
		interest.release("s");
		assertThat(interest.idleSince("s", 50)).isFalse();
		assertThat(interest.idleSince("s", 150)).isTrue();
	}

	@Test
	void aServiceSomeoneStillWantsIsNeverIdle() {
		interest.acquire("s");
		interest.acquire("s");
		interest.release("s");
		now.set(1_000);
		assertThat(interest.idleSince("s", 900)).isFalse();
		interest.release("s");
		assertThat(interest.idleSince("s", 900)).isFalse();
		assertThat(interest.idleSince("s", 1_001)).isTrue();
	}

	@Test
	void aForgottenServiceWantedAgainCountsFromOne() {
		interest.acquire("s");
		interest.release("s");
		assertThat(interest.idleSince("s", 200)).isTrue();
		interest.acquire("s");
		assertThat(interest.idleSince("s", Long.MAX_VALUE)).isFalse();
	}

}

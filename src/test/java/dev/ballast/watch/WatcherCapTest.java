package dev.ballast.watch;

import java.time.Duration;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WatcherCapTest {

	final WatcherCap cap = new WatcherCap(settings(5, 2), new SimpleMeterRegistry());

	@Test
	void tokenlessWaitsFillOnlyTheirShareAndLeaveTheRestToCallersWithAToken() {
		assertThat(cap.tryAcquireTokenless()).isTrue();
		assertThat(cap.tryAcquireTokenless()).isTrue();
		assertThat(cap.tryAcquireTokenless()).as("past the tokenless share").isFalse();
		assertThat(cap.open()).isEqualTo(2);

		assertThat(cap.tryAcquire()).isTrue();
		assertThat(cap.tryAcquire()).isTrue();
		assertThat(cap.tryAcquire()).isTrue();
		assertThat(cap.tryAcquire()).as("past the node's cap").isFalse();
	}

	@Test
	void aTokenlessWaitIsRefusedWhenTheNodeIsFullEvenWithinItsShare() {
		for (int i = 0; i < 5; i++) {
			assertThat(cap.tryAcquire()).isTrue();
		}
		assertThat(cap.tryAcquireTokenless()).isFalse();

		cap.release();
		assertThat(cap.tryAcquireTokenless()).as("the refused one left its share free").isTrue();
		assertThat(cap.tryAcquireTokenless()).isFalse();
	}

	@Test
	void aReleasedTokenlessWaitFreesItsShare() {
		assertThat(cap.tryAcquireTokenless()).isTrue();
		assertThat(cap.tryAcquireTokenless()).isTrue();
		cap.releaseTokenless();

		assertThat(cap.tryAcquireTokenless()).isTrue();
		assertThat(cap.open()).isEqualTo(2);
	}

	private static WatchSettings settings(int maxWatchers, int maxTokenless) {
		return new WatchSettings(Duration.ofSeconds(15), Duration.ofMinutes(10), Duration.ofMinutes(1),
				Duration.ofHours(1), maxWatchers, maxTokenless, 1000, 1000, Duration.ofSeconds(30), 1024,
				Duration.ofSeconds(2), Duration.ofMinutes(2), Duration.ofSeconds(60), Duration.ofSeconds(300),
				Duration.ofSeconds(60), Duration.ofSeconds(1), true);
	}

}

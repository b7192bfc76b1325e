package dev.ballast.watch;

import java.util.List;

import dev.ballast.instance.InstanceList;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The reader's account of what the delivering thread holds must match the feed's own. */
class FollowedTest {

	@Test
	void holdsWhatTheServiceFeedHolds() {
		int capacity = 3;
		Followed followed = new Followed(5, capacity);
		ServiceFeed feed = new ServiceFeed(new InstanceList("s", 5, List.of()), capacity);
		for (long revision = 6; revision <= 12; revision++) {
			followed.applied(revision);
			feed.apply(ServiceFeedTest.upsert("a", revision));
			for (long after = 0; after <= revision; after++) {
				boolean heldByFeed = feed.changesAfter(after).isPresent();
				assertThat(after >= followed.heldAfter()).as("after %d at %d", after, revision).isEqualTo(heldByFeed);
			}
		}
		followed.reset(20);
		feed.reset(new InstanceList("s", 20, List.of()));
		assertThat(followed.heldAfter()).isEqualTo(20);
		assertThat(feed.changesAfter(19)).isEmpty();
		assertThat(feed.changesAfter(20)).isPresent();
	}

}

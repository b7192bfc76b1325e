package dev.ballast.watch;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import dev.ballast.registry.InstanceList;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The reader's account of what the delivering thread holds must match the feed's own. */
class FollowedTest {

	@Test
	void holdsWhatTheServiceFeedHolds() {
		int capacity = 3;
		Followed followed = new Followed(at(5), capacity);
		ServiceFeed feed = new ServiceFeed(ServiceFeedTest.loaded(new InstanceList("s", 5, List.of(), null)), capacity,
				new AtomicReference<>());
		for (long revision = 6; revision <= 12; revision++) {
			followed.applied(at(revision));
			feed.apply(ServiceFeedTest.upsert("a", revision));
			for (long after = 0; after <= revision; after++) {
				boolean heldByFeed = feed.changesAfter(at(after)).isPresent();
				assertThat(heldInMemory(followed, after)).as("after %d at %d", after, revision).isEqualTo(heldByFeed);
			}
		}
		followed.reset(at(20));
		feed.reset(ServiceFeedTest.loaded(new InstanceList("s", 20, List.of(), null)), followed.delivered());
		assertThat(followed.heldAfter()).isEqualTo(20);
		assertThat(feed.changesAfter(at(19))).isEmpty();
		assertThat(feed.changesAfter(at(20))).isPresent();
	}

	/**
	 * The delivering thread applied this node's own commits before the reader read them:
	 * the reader takes them as handed over, and still agrees with the feed on what memory
	 * holds.
	 */
	@Test
	void takesWhatTheFeedAppliedFromLocalCommitsAsHandedOver() {
		int capacity = 3;
		Followed followed = new Followed(at(5), capacity);
		ServiceFeed feed = new ServiceFeed(ServiceFeedTest.loaded(new InstanceList("s", 5, List.of(), null)), capacity,
				followed.delivered());
		for (long revision = 6; revision <= 11; revision++) {
			assertThat(feed.apply(ServiceFeedTest.upsert("a", revision))).isTrue();
			if (revision % 3 == 0) {
				followed.catchUpToDelivered();
				assertThat(followed.revision()).isEqualTo(revision);
				for (long after = 0; after <= revision; after++) {
					boolean heldByFeed = feed.changesAfter(at(after)).isPresent();
					assertThat(heldInMemory(followed, after)).as("after %d at %d", after, revision)
						.isEqualTo(heldByFeed);
				}
			}
		}
		assertThat(followed.revision()).as("10 and 11 not caught up yet").isEqualTo(9);
		assertThat(feed.apply(ServiceFeedTest.upsert("a", 11))).as("applied already").isFalse();
		followed.catchUpToDelivered();
		assertThat(followed.revision()).isEqualTo(11);
		assertThat(followed.heldAfter()).isEqualTo(8);
		assertThat(feed.changesAfter(at(9))).isPresent();
		assertThat(feed.changesAfter(at(8))).as("the change at 8 itself is no longer held").isEmpty();
	}

	/**
	 * What {@link FollowedServices#missed} leaves to memory: the changes after a position
	 * whose own change memory holds too, so that its history can be checked.
	 */
	private static boolean heldInMemory(Followed followed, long after) {
		return after > followed.heldAfter() || after == followed.revision();
	}

	private static Position at(long revision) {
		return ServiceFeedTest.at(revision);
	}

}

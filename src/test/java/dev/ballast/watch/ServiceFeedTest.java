package dev.ballast.watch;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.ballast.instance.Health;
import dev.ballast.instance.InstanceList;
import dev.ballast.instance.InstanceView;
import dev.ballast.instance.LeaseTtl;
import dev.ballast.instance.Mode;
import dev.ballast.instance.Port;
import dev.ballast.weight.Weight;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ServiceFeedTest {

	@Test
	void appliesOnlyTheNextRevision() {
		ServiceFeed feed = new ServiceFeed(new InstanceList("s", 5, List.of(instance("a", 5)), null), 10,
				new AtomicLong());
		assertThat(feed.apply(upsert("b", 7))).as("6 is missing").isFalse();
		assertThat(feed.revision()).isEqualTo(5);
		assertThat(feed.apply(upsert("b", 6))).isTrue();
		assertThat(feed.apply(remove("a", 7))).isTrue();
		assertThat(feed.apply(settings(8))).isTrue();
		feed.publish();
		assertThat(feed.current().revision()).isEqualTo(8);
		assertThat(feed.current().instances()).extracting(InstanceView::id).containsExactly("b");
	}

	@Test
	void servesMissedChangesOnlyWhileItHoldsAllOfThem() {
		ServiceFeed feed = new ServiceFeed(new InstanceList("s", 0, List.of(), null), 3, new AtomicLong());
		for (long revision = 1; revision <= 5; revision++) {
			feed.apply(upsert("a", revision));
		}
		assertThat(feed.changesAfter(5)).hasValue(List.of());
		assertThat(feed.changesAfter(2)).hasValueSatisfying(
				changes -> assertThat(changes).extracting(Change::revision).containsExactly(3L, 4L, 5L));
		assertThat(feed.changesAfter(1)).as("revision 2 was forgotten").isEmpty();
		assertThat(feed.changesAfter(6)).as("ahead of this node").isEmpty();
	}

	@Test
	void aResetForgetsRecentChanges() {
		ServiceFeed feed = new ServiceFeed(new InstanceList("s", 0, List.of(), null), 3, new AtomicLong());
		feed.apply(upsert("a", 1));
		feed.reset(new InstanceList("s", 9, List.of(instance("z", 9)), null));
		assertThat(feed.changesAfter(0)).isEmpty();
		assertThat(feed.changesAfter(9)).hasValue(List.of());
		assertThat(feed.current().instances()).extracting(InstanceView::id).containsExactly("z");
	}

	static InstanceView instance(String id, long revision) {
		return new InstanceView("s", id, "h", Port.of(80), null, Weight.of(100), Weight.of(100), true, Mode.SERVING,
				null, null, List.of(), Health.PASSING, Map.of(), List.of(), LeaseTtl.ofSeconds(30), Instant.EPOCH,
				revision);
	}

	static Change upsert(String id, long revision) {
		return new Change("s", revision, Change.Kind.UPSERT, id, instance(id, revision), "{}");
	}

	static Change remove(String id, long revision) {
		return new Change("s", revision, Change.Kind.REMOVE, id, null, "{}");
	}

	static Change settings(long revision) {
		return new Change("s", revision, Change.Kind.SERVICE, null, null, null);
	}

}

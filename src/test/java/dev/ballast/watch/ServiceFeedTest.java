package dev.ballast.watch;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import dev.ballast.registry.Health;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.LoggedChange.Kind;
import dev.ballast.registry.Mode;
import dev.ballast.registry.Port;
import dev.ballast.weight.Weight;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ServiceFeedTest {

	@Test
	void appliesOnlyTheNextRevision() {
		ServiceFeed feed = new ServiceFeed(loaded(new InstanceList("s", 5, List.of(instance("a", 5)), null)), 10,
				new AtomicReference<>());
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
		ServiceFeed feed = new ServiceFeed(loaded(new InstanceList("s", 0, List.of(), null)), 3,
				new AtomicReference<>());
		for (long revision = 1; revision <= 5; revision++) {
			feed.apply(upsert("a", revision));
		}
		assertThat(feed.changesAfter(at(5))).hasValue(List.of());
		assertThat(feed.changesAfter(at(3)))
			.hasValueSatisfying(changes -> assertThat(changes).extracting(Change::revision).containsExactly(4L, 5L));
		assertThat(feed.changesAfter(at(2))).as("the change at 2 was forgotten: its history is not known here")
			.isEmpty();
		assertThat(feed.changesAfter(at(6))).as("ahead of this node").isEmpty();
	}

	@Test
	void aResetForgetsRecentChanges() {
		ServiceFeed feed = new ServiceFeed(loaded(new InstanceList("s", 0, List.of(), null)), 3,
				new AtomicReference<>());
		feed.apply(upsert("a", 1));
		feed.reset(loaded(new InstanceList("s", 9, List.of(instance("z", 9)), null)), new AtomicReference<>());
		assertThat(feed.changesAfter(at(0))).isEmpty();
		assertThat(feed.changesAfter(at(9))).hasValue(List.of());
		assertThat(feed.current().instances()).extracting(InstanceView::id).containsExactly("z");
	}

	static InstanceView instance(String id, long revision) {
		return new InstanceView("s", id, "h", Port.of(80), null, Weight.of(100), Weight.of(100), true, Mode.SERVING,
				null, null, List.of(), Health.PASSING, null, null, Map.of(), List.of(), LeaseTtl.ofSeconds(30),
				Instant.EPOCH, revision);
	}

	/**
	 * The changes of a promoted standby that lacked revisions 4 and 5 and handed them out
	 * again: a client that had them is sent a snapshot, never the changes after.
	 */
	@Test
	void servesNothingFromMemoryToAClientWhosePositionIsAnotherHistorys() {
		ServiceFeed feed = new ServiceFeed(loaded(new InstanceList("s", 0, List.of(), null)), 10,
				new AtomicReference<>());
		for (long revision = 1; revision <= 3; revision++) {
			feed.apply(upsert("a", revision));
		}
		long promoted = 0x9f3a01c2L;
		for (long revision = 4; revision <= 6; revision++) {
			feed.apply(
					new Change("s", new Position(revision, promoted), Kind.UPSERT, "a", instance("a", revision), "{}"));
		}
		assertThat(feed.changesAfter(at(5))).as("5 of the first history was lost").isEmpty();
		assertThat(feed.changesAfter(at(6))).as("so was 6").isEmpty();
		assertThat(feed.changesAfter(new Position(5, promoted))).hasValueSatisfying(
				changes -> assertThat(changes).extracting(Change::position).containsExactly(new Position(6, promoted)));
		assertThat(feed.changesAfter(new Position(6, promoted))).hasValue(List.of());
		assertThat(feed.changesAfter(at(3))).as("3 is in both histories")
			.hasValueSatisfying(
					changes -> assertThat(changes).extracting(Change::revision).containsExactly(4L, 5L, 6L));
		assertThat(feed.changesAfter(new Position(3, promoted))).as("3 was not committed in the new history").isEmpty();
		assertThat(feed.changesAfter(new Position(0, promoted))).as("revision 0 is the same in every history")
			.isPresent();
	}

	static Position at(long revision) {
		return new Position(revision, Position.FIRST);
	}

	static LoadedService loaded(InstanceList state) {
		return new LoadedService(state, at(state.revision()));
	}

	static Change upsert(String id, long revision) {
		return new Change("s", at(revision), Kind.UPSERT, id, instance(id, revision), "{}");
	}

	static Change remove(String id, long revision) {
		return new Change("s", at(revision), Kind.REMOVE, id, null, "{}");
	}

	static Change settings(long revision) {
		return new Change("s", at(revision), Kind.SERVICE, null, null, null);
	}

}

package dev.ballast.client;

import static dev.ballast.client.Wire.instance;
import static dev.ballast.client.Wire.removal;
import static dev.ballast.client.Wire.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChangeEventsTest {

	private final List<WatchedService> changes = new ArrayList<>();

	private final WatchedServices services = new WatchedServices(List.of("payments", "orders"), changes::add);

	private final ChangeEvents events = new ChangeEvents(services);

	@Test
	void aSnapshotReplacesTheWholeService() {
		apply("snapshot", "42", snapshot("payments", 42, instance("payments", "b", 40), instance("payments", "a", 41)));
		apply("snapshot", "50", snapshot("payments", 50, instance("payments", "c", 50)));

		assertThat(ids("payments")).containsExactly("c");
		assertThat(services.get("payments").orElseThrow().revision()).isEqualTo(50);
	}

	@Test
	void theRegistrysStaleMarkersChangeNothing() {
		apply("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 41)));
		// Sent while the registry's database is unreachable, and when it is back; they
		// carry no id, so the parser repeats the last one.
		apply("stale", "42", "{\"stale\":true}");
		apply("stale", "42", "{\"stale\":false}");

		assertThat(ids("payments")).containsExactly("a");
		assertThat(changes).extracting(WatchedService::revision).containsExactly(42L);
	}

	@Test
	void keepsInstancesOrderedById() {
		apply("snapshot", "42", snapshot("payments", 42, instance("payments", "b", 40), instance("payments", "a", 41)));

		assertThat(ids("payments")).containsExactly("a", "b");
	}

	@Test
	void anUpsertAddsOrReplacesByIdAndARemoveRemoves() {
		apply("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 41)));
		apply("upsert", "43", instance("payments", "b", 43));
		apply("upsert", "44", instance("payments", "a", "7", 44));
		apply("remove", "45", removal("payments", "b", 45));

		WatchedService payments = services.get("payments").orElseThrow();
		assertThat(payments.instances()).singleElement().satisfies((a) -> {
			assertThat(a.id()).isEqualTo("a");
			assertThat(a.weight()).isEqualTo(7);
		});
		assertThat(payments.revision()).isEqualTo(45);
		assertThat(changes).extracting(WatchedService::revision).containsExactly(42L, 43L, 44L, 45L);
	}

	@Test
	void aDeleteLeavesTheServiceEmptyAtItsRevision() {
		apply("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 41)));
		apply("delete", "44", "{\"service\":\"payments\",\"revision\":44}");

		WatchedService payments = services.get("payments").orElseThrow();
		assertThat(payments.instances()).isEmpty();
		assertThat(payments.revision()).isEqualTo(44);
	}

	@Test
	void anIdWithoutDataMovesTheRevisionAndKeepsTheInstances() {
		apply("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 41)));

		events.apply(new ServerSentEvent("a:42,orders:3,payments:45", "message", null));

		assertThat(services.get("payments").orElseThrow().revision()).isEqualTo(45);
		assertThat(ids("payments")).containsExactly("a");
		assertThat(changes).extracting(WatchedService::revision).containsExactly(42L, 45L);
	}

	@Test
	void anIdWithoutDataGivesAServiceWithoutSnapshotNoState() {
		events.apply(new ServerSentEvent("orders:3,payments:45", "message", null));

		assertThat(services.get("orders")).isEmpty();
		assertThat(changes).isEmpty();
	}

	@Test
	void skipsChangesBelowTheAppliedRevision() {
		apply("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 41)));
		apply("upsert", "40", instance("payments", "old", 40));
		apply("remove", "41", removal("payments", "a", 41));

		assertThat(ids("payments")).containsExactly("a");
		assertThat(changes).hasSize(1);
	}

	@Test
	void appliesEveryInstanceAZoneStreamSendsAtOneRevision() {
		apply("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 41), instance("payments", "b", 41),
				instance("payments", "c", 41)));
		// One change spilled zone traffic: three instances moved in the zone's view at
		// 43,
		// and only the last event carries the id (the parser repeats the one before).
		apply("upsert", "42", instance("payments", "a", "7", 43));
		apply("upsert", "42", instance("payments", "b", "8", 43));
		apply("remove", "43", removal("payments", "c", 43));

		WatchedService payments = services.get("payments").orElseThrow();
		assertThat(payments.instances()).extracting(WatchedInstance::id, WatchedInstance::weight)
			.containsExactly(tuple("a", 7), tuple("b", 8));
		assertThat(payments.revision()).isEqualTo(43);
	}

	@Test
	void aSnapshotSkipsOnlyTheInstancesItRejects() {
		apply("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 41),
				instance("payments", "zero", "\"0\"", 42), instance("payments", "half", "0.5", 42)));

		assertThat(ids("payments")).containsExactly("a");
	}

	@Test
	void anUpsertWithAStringWeightIsNeverApplied() {
		apply("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 41)));

		apply("upsert", "43", instance("payments", "a", "\"0\"", 43));

		WatchedService payments = services.get("payments").orElseThrow();
		assertThat(payments.instances()).singleElement().extracting(WatchedInstance::weight).isEqualTo(100);
		assertThat(payments.revision()).isEqualTo(42);
		assertThat(changes).hasSize(1);
	}

	@Test
	void ignoresChangesOfServicesNotWatched() {
		apply("upsert", "1", instance("inventory", "a", 1));

		assertThat(changes).isEmpty();
	}

	@Test
	void ignoresAnInstanceFiledUnderAnotherServiceInASnapshot() {
		apply("snapshot", "42", snapshot("payments", 42, instance("orders", "a", 41), instance("payments", "b", 41)));

		assertThat(ids("payments")).containsExactly("b");
	}

	@Test
	void ignoresEventTypesItDoesNotKnowAndDataThatIsNotJson() {
		apply("canary", "43", "{}");
		apply("upsert", "44", "{\"service\":");
		apply("upsert", "45", instance("payments", "a", 45) + " {}");

		assertThat(changes).isEmpty();
	}

	@Test
	void refusesARecordWithADuplicateWeight() {
		apply("upsert", "43", instance("payments", "a", 43).replace("\"weight\":100", "\"weight\":100,\"weight\":5"));

		assertThat(changes).isEmpty();
	}

	private void apply(String type, String id, String data) {
		events.apply(new ServerSentEvent(id, type, data));
	}

	private List<String> ids(String service) {
		return services.get(service).orElseThrow().instances().stream().map(WatchedInstance::id).toList();
	}

}

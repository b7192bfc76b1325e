package dev.ballast.watch;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.ballast.registry.ChangeLog;
import dev.ballast.registry.ChangeLogs;
import dev.ballast.registry.InstanceChanged;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceName;
import dev.ballast.support.Api;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.EventStream;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * This node's own commits reach its watchers straight from the commit, without the
 * notification and a read of the change log; what they deliver is exactly what the log
 * gives, and a write that rolls back delivers nothing.
 */
@RegistryTest
class LocalCommitsTest {

	static final Duration SOON = Duration.ofSeconds(5);

	@LocalServerPort
	int port;

	@Autowired
	Notifications notifications;

	@Autowired
	ChangeReader reader;

	@Autowired
	ChangeLog changeLog;

	@Autowired
	PlatformTransactionManager transactions;

	@Autowired
	ObjectMapper json;

	/**
	 * With the listener stopped, only the catch-up timer (every 2 s) reads the log. Five
	 * writes 0.3 s apart, each seen within 1 s of its acknowledgement: a timer that comes
	 * every 2 s leaves a second in which every write waits longer, and 0.3 s apart some
	 * write always falls in it.
	 */
	@Test
	void aCommitOfThisNodeReachesItsWatchersWithoutTheNotification() {
		try (WatchedInstance watched = WatchedInstance.open(Api.on(port), port, "local")) {
			notifications.stop();
			for (int weight = 1; weight <= 5; weight++) {
				// A registration goes through the group committer's transaction.
				WatchedInstance.Delivery delivery = weight == 3 ? watched.registerWeight(weight)
						: watched.patchWeight(weight);
				assertThat(delivery.event().id()).isEqualTo(Integer.toString(1 + weight));
				assertThat(delivery.event().json().get("weight").asInt()).isEqualTo(weight);
				assertThat(delivery.eventMillis()).as("weight %d seen after %d ms", weight, delivery.eventMillis())
					.isLessThan(1000);
				WatchedInstance.pause(Duration.ofMillis(300));
			}
		}
		finally {
			notifications.start();
		}
	}

	/**
	 * A change logged in a transaction that rolls back is never delivered; the revision
	 * it would have taken then goes to the next real write, which arrives with its own
	 * data.
	 */
	@Test
	void aWriteThatRollsBackIsNeverDelivered() {
		Api api = Api.on(port);
		String service = Names.service("rollback");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("h", 80).weight(10).leaseTtlSeconds(300));
		// The instance resource carries its checks beside the instance every reader sees.
		ObjectNode read = (ObjectNode) json.readTree(api.get(a).body());
		read.remove("checks");
		InstanceView stored = json.treeToValue(read, InstanceView.class);
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			Event snapshot = stream.nextEvent(SOON);
			assertThat(snapshot.id()).isEqualTo("1");
			ChangeLogs.logAndRollBack(transactions, changeLog,
					new InstanceChanged(ServiceName.of(service), 2, InstanceId.of("a"), stored, Instant.now()));
			assertThat(stream.eventWithin(Duration.ofSeconds(1))).as("an event of a rolled-back write").isNull();
			api.patch(a, "{\"weight\":9}");
			Event event = stream.nextEvent(SOON);
			assertThat(event.id()).isEqualTo("2");
			assertThat(event.json().get("weight").asInt()).isEqualTo(9);
		}
	}

	/**
	 * The event of a local commit carries the bytes the change log gives for the same
	 * revision, metadata order included (PostgreSQL's jsonb keeps object keys in an order
	 * of its own: shorter keys first).
	 */
	@Test
	void aLocalCommitDeliversTheBytesTheLogGives() {
		Api api = Api.on(port);
		String service = Names.service("bytes");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a,
				Registration.at("h", 80)
					.leaseTtlSeconds(300)
					.metadata("zone-name", "eu", "a", "1", "version", "2.4.1", "b.long.key", "x")
					.tags("v2", "blue"));
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			assertThat(stream.nextEvent(SOON).name()).isEqualTo("snapshot");
			notifications.stop();
			api.patch(a, "{\"weight\":7}");
			Event upsert = stream.nextEvent(SOON);
			api.delete(a);
			Event remove = stream.nextEvent(SOON);
			List<Change> logged = reader.from(service, 2, 3);
			assertThat(upsert.name()).isEqualTo("upsert");
			assertThat(upsert.data()).isEqualTo(logged.get(0).data());
			assertThat(upsert.data()).contains(
					"\"metadata\":{\"a\":\"1\",\"b.long.key\":\"x\",\"version\":\"2.4.1\"," + "\"zone-name\":\"eu\"}");
			assertThat(remove.name()).isEqualTo("remove");
			assertThat(remove.data()).isEqualTo(logged.get(1).data());
		}
		finally {
			notifications.start();
		}
	}

}

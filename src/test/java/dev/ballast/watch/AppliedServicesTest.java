package dev.ballast.watch;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ballast.registry.Health;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.Mode;
import dev.ballast.registry.Port;
import dev.ballast.registry.ServiceName;
import dev.ballast.weight.Weight;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AppliedServicesTest {

	final AppliedServices known = new AppliedServices(new LastKnownSettings(2));

	@Test
	void aStateNeverGoesBackToAnOlderRevision() {
		known.read(list("a", 5, instance("a", "x", 5)));
		known.read(list("a", 3));

		assertThat(known.lastKnown(ServiceName.of("a"))).hasValueSatisfying(l -> assertThat(l.revision()).isEqualTo(5));
	}

	@Test
	void anInstanceComesFromTheLaterOfTheListAndItsOwnRead() {
		known.read(list("a", 5, instance("a", "x", 4)));
		known.read(instance("a", "x", 7));
		assertThat(known.lastKnown(ServiceName.of("a"), InstanceId.of("x"))).hasValueSatisfying(
				found -> assertThat(found).hasValueSatisfying(i -> assertThat(i.revision()).isEqualTo(7)));

		// A later list without it means it was removed.
		known.read(list("a", 8));
		assertThat(known.lastKnown(ServiceName.of("a"), InstanceId.of("x"))).hasValue(java.util.Optional.empty());
		// Nothing known of the service at all.
		assertThat(known.lastKnown(ServiceName.of("b"), InstanceId.of("x"))).isEmpty();
	}

	@Test
	void answersWithTheNewerOfWhatItReadAndWhatTheNodeApplied() {
		ServiceName a = ServiceName.of("a");
		known.read(list("a", 5, instance("a", "x", 5)));
		known.publish(list("a", 4));

		assertThat(known.lastKnown(a)).hasValueSatisfying(l -> assertThat(l.revision()).isEqualTo(5));
		assertThat(known.lastKnown(a, InstanceId.of("x"))).hasValueSatisfying(
				found -> assertThat(found).hasValueSatisfying(i -> assertThat(i.revision()).isEqualTo(5)));

		known.publish(list("a", 9, instance("a", "y", 9)));
		assertThat(known.lastKnown(a)).hasValueSatisfying(l -> assertThat(l.revision()).isEqualTo(9));
		assertThat(known.lastKnown(ServiceName.of("b"))).isEmpty();
		// The node applied a later state without x: x was removed.
		assertThat(known.lastKnown(a, InstanceId.of("x"))).hasValue(Optional.empty());
		assertThat(known.lastKnown(a, InstanceId.of("y"))).hasValueSatisfying(
				found -> assertThat(found).hasValueSatisfying(i -> assertThat(i.revision()).isEqualTo(9)));
		// An instance read by itself after the applied state is newer than it.
		known.read(instance("a", "y", 11));
		assertThat(known.lastKnown(a, InstanceId.of("y"))).hasValueSatisfying(
				found -> assertThat(found).hasValueSatisfying(i -> assertThat(i.revision()).isEqualTo(11)));
	}

	@Test
	void forgetsTheLeastRecentlyUsedServicesBeyondItsBound() {
		known.read(list("a", 1));
		known.read(list("b", 1));
		known.lastKnown(ServiceName.of("a"));
		known.read(list("c", 1));

		assertThat(known.lastKnown(ServiceName.of("a"))).isPresent();
		assertThat(known.lastKnown(ServiceName.of("b"))).isEmpty();
		assertThat(known.lastKnown(ServiceName.of("c"))).isPresent();
	}

	private static InstanceList list(String service, long revision, InstanceView... instances) {
		return new InstanceList(service, revision, List.of(instances), null);
	}

	private static InstanceView instance(String service, String id, long revision) {
		return new InstanceView(service, id, "h", Port.of(1), null, Weight.of(10), Weight.of(10), true, Mode.SERVING,
				null, null, List.of(), Health.PASSING, null, null, Map.of(), List.of(), LeaseTtl.ofSeconds(30),
				Instant.EPOCH, revision);
	}

}

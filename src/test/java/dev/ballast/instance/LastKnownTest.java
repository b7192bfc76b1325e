package dev.ballast.instance;

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

class LastKnownTest {

	final LastKnown known = new LastKnown(new LastKnownSettings(2));

	@Test
	void aStateNeverGoesBackToAnOlderRevision() {
		known.instances(list("a", 5, instance("a", "x", 5)));
		known.instances(list("a", 3));

		assertThat(known.instances(ServiceName.of("a"))).hasValueSatisfying(l -> assertThat(l.revision()).isEqualTo(5));
	}

	@Test
	void anInstanceComesFromTheLaterOfTheListAndItsOwnRead() {
		known.instances(list("a", 5, instance("a", "x", 4)));
		known.instance(instance("a", "x", 7));
		assertThat(known.instance(ServiceName.of("a"), InstanceId.of("x"))).hasValueSatisfying(
				found -> assertThat(found).hasValueSatisfying(i -> assertThat(i.revision()).isEqualTo(7)));

		// A later list without it means it was removed.
		known.instances(list("a", 8));
		assertThat(known.instance(ServiceName.of("a"), InstanceId.of("x"))).hasValue(java.util.Optional.empty());
		// Nothing known of the service at all.
		assertThat(known.instance(ServiceName.of("b"), InstanceId.of("x"))).isEmpty();
	}

	@Test
	void answersWithTheNewerOfWhatItReadAndWhatTheNodeApplied() {
		ServiceName a = ServiceName.of("a");
		known.instances(list("a", 5, instance("a", "x", 5)));
		Optional<InstanceList> older = Optional.of(list("a", 4));
		Optional<InstanceList> newer = Optional.of(list("a", 9, instance("a", "y", 9)));

		assertThat(known.instances(a, older)).hasValueSatisfying(l -> assertThat(l.revision()).isEqualTo(5));
		assertThat(known.instances(a, newer)).hasValueSatisfying(l -> assertThat(l.revision()).isEqualTo(9));
		assertThat(known.instances(ServiceName.of("b"), Optional.empty())).isEmpty();

		assertThat(known.instance(a, InstanceId.of("x"), older)).hasValueSatisfying(
				found -> assertThat(found).hasValueSatisfying(i -> assertThat(i.revision()).isEqualTo(5)));
		// The node applied a later state without x: x was removed.
		assertThat(known.instance(a, InstanceId.of("x"), newer)).hasValue(Optional.empty());
		assertThat(known.instance(a, InstanceId.of("y"), newer)).hasValueSatisfying(
				found -> assertThat(found).hasValueSatisfying(i -> assertThat(i.revision()).isEqualTo(9)));
		// An instance read by itself after the applied state is newer than it.
		known.instance(instance("a", "y", 11));
		assertThat(known.instance(a, InstanceId.of("y"), newer)).hasValueSatisfying(
				found -> assertThat(found).hasValueSatisfying(i -> assertThat(i.revision()).isEqualTo(11)));
	}

	@Test
	void forgetsTheLeastRecentlyUsedServicesBeyondItsBound() {
		known.instances(list("a", 1));
		known.instances(list("b", 1));
		known.instances(ServiceName.of("a"));
		known.instances(list("c", 1));

		assertThat(known.instances(ServiceName.of("a"))).isPresent();
		assertThat(known.instances(ServiceName.of("b"))).isEmpty();
		assertThat(known.instances(ServiceName.of("c"))).isPresent();
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

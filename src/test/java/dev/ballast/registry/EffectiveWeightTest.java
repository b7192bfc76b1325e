package dev.ballast.registry;

import java.time.Instant;
import java.util.Map;

import dev.ballast.weight.Weight;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The mode table of the README: what each mode lets balancers send, ejection first. */
class EffectiveWeightTest {

	private static final Instance SERVING = Instance.registered(ServiceName.of("s"), InstanceId.of("i"), "h",
			Port.of(80), null, Weight.of(100), new Metadata(Map.of()), Tags.NONE, LeaseTtl.ofSeconds(30), Instant.EPOCH,
			null);

	@Test
	void eachModeGivesTheWeightItsRowSays() {
		Weight ramp = Weight.of(40);
		assertThat(SERVING.inMode(Mode.SERVING, ramp, null).effectiveWeight()).isEqualTo(Weight.of(100));
		assertThat(SERVING.inMode(Mode.WARMING, ramp, null).effectiveWeight()).isEqualTo(ramp);
		assertThat(SERVING.inMode(Mode.DRAINING, ramp, null).effectiveWeight()).isEqualTo(ramp);
		assertThat(SERVING.inMode(Mode.DRAINED, ramp, null).effectiveWeight()).isEqualTo(Weight.ZERO);
		assertThat(SERVING.inMode(Mode.MAINTENANCE, ramp, null).effectiveWeight()).isEqualTo(Weight.ZERO);
	}

	@Test
	void anEjectedInstanceGetsNothingInAnyModeUntilItRenews() {
		Instance ejected = SERVING.expired(true);
		for (Mode mode : Mode.values()) {
			assertThat(ejected.inMode(mode, Weight.of(40), null).effectiveWeight()).as(mode.name())
				.isEqualTo(Weight.ZERO);
		}
		assertThat(ejected.renewed(Instant.EPOCH.plusSeconds(1)).effectiveWeight()).isEqualTo(Weight.of(100));
	}

	@Test
	void aWeightHeldAtZeroByHandKeepsItsNominalWeightAndAShiftDoesNot() {
		Instance zero = SERVING.withWeight(Weight.ZERO);
		assertThat(zero.nominalWeight()).isEqualTo(Weight.of(100));
		assertThat(zero.heldOut()).isTrue();
		Instance shifted = SERVING.shiftedTo(Weight.ZERO);
		assertThat(shifted.nominalWeight()).isEqualTo(Weight.ZERO);
		assertThat(shifted.heldOut()).isFalse();
		assertThat(zero.withWeight(Weight.of(30)).nominalWeight()).isEqualTo(Weight.of(30));
	}

}

package dev.ballast.weight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class WeightTest {

	@Test
	void zeroIsTheLowestWeight() {
		assertThat(Weight.of(0).value()).isZero();
		assertThat(Weight.of(0)).isEqualTo(Weight.ZERO);
		assertThat(Weight.MIN).isZero();
	}

	@Test
	void tenThousandIsTheHighestWeight() {
		assertThat(new Weight(10_000).value()).isEqualTo(Weight.MAX).isEqualTo(10_000);
	}

	@Test
	void minusOneIsRefusedWithTheRuleAndTheValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> Weight.of(-1))
			.withMessage("weight must be an integer from 0 to 10000; got -1");
	}

	@Test
	void tenThousandAndOneIsRefusedWithTheRuleAndTheValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Weight(10_001))
			.withMessage("weight must be an integer from 0 to 10000; got 10001");
	}

	@Test
	void weightsOrderByValue() {
		assertThat(Weight.of(1)).isLessThan(Weight.of(2)).isGreaterThan(Weight.ZERO);
		assertThat(Weight.of(7).compareTo(Weight.of(7))).isZero();
	}

}

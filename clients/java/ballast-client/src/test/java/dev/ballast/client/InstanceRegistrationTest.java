package dev.ballast.client;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class InstanceRegistrationTest {

	@Test
	void writesTheBodyTheRegistryReadsWithAnIntegerWeight() {
		InstanceRegistration registration = new InstanceRegistration("payments", "10.0.0.5:8080", "10.0.0.5", 8080, 0,
				"eu-1a", Map.of("version", "2.4.1", "a", "\"x\""), List.of("v2", "blue"), 30);

		assertThat(registration.toJson()).isEqualTo("{\"address\":\"10.0.0.5\",\"port\":8080,\"weight\":0,"
				+ "\"zone\":\"eu-1a\",\"metadata\":{\"a\":\"\\\"x\\\"\",\"version\":\"2.4.1\"},\"tags\":[\"v2\",\"blue\"],"
				+ "\"leaseTtlSeconds\":30}");
	}

	@Test
	void leavesOutWhatTheServiceDecides() {
		InstanceRegistration registration = new InstanceRegistration("payments", "a", "h", 1, null, null, Map.of(),
				List.of(), null);

		assertThat(registration.toJson()).isEqualTo("{\"address\":\"h\",\"port\":1,\"metadata\":{}}");
	}

	@ParameterizedTest
	@ValueSource(strings = { "weight", "WEIGHT", "Weight", "ballast.weight" })
	void refusesMetadataKeysTheRegistryReserves(String key) {
		assertThatIllegalArgumentException().isThrownBy(() -> registration(Map.of(key, "0"), 100, 30))
			.withMessageStartingWith("metadata key " + key + " is reserved");
	}

	@Test
	void namesTheFieldThatIsOutOfRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> registration(Map.of(), 10_001, 30))
			.withMessage("weight must be an integer from 0 to 10000; got 10001");
		assertThatIllegalArgumentException().isThrownBy(() -> registration(Map.of(), 100, 4))
			.withMessage("leaseTtlSeconds must be an integer from 5 to 300; got 4");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new InstanceRegistration("Payments", "a", "h", 1, null, null, Map.of(), List.of(), null))
			.withMessage("service must be a lower-case DNS label of 1 to 63 of a-z 0-9 -; got the string \"Payments\"");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new InstanceRegistration("p", "a b", "h", 1, null, null, Map.of(), List.of(), null))
			.withMessage("id must be 1 to 128 of A-Z a-z 0-9 . _ : -; got the string \"a b\"");
	}

	private static InstanceRegistration registration(Map<String, String> metadata, int weight, int ttl) {
		return new InstanceRegistration("payments", "a", "10.0.0.5", 8080, weight, null, metadata, List.of(), ttl);
	}

}

package dev.ballast.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WatchedInstanceTest {

	@Test
	void readsTheInstanceTheContractDescribes() {
		WatchedInstance instance = read("""
				{"service":"payments","id":"10.0.0.5:8080","address":"10.0.0.5","port":8080,"zone":"az-1",
				"weight":100,"effectiveWeight":60,"routable":true,"mode":"WARMING","health":"PASSING",
				"metadata":{"version":"2.4.1"},"leaseTtlSeconds":30,"leaseExpiresAt":"2026-11-30T10:00:30Z",
				"revision":42}""");

		assertThat(instance)
			.isEqualTo(new WatchedInstance("payments", "10.0.0.5:8080", "10.0.0.5", 8080, "az-1", 100, 60, true,
					"WARMING", "PASSING", Map.of("version", "2.4.1"), 30, Instant.parse("2026-11-30T10:00:30Z"), 42));
	}

	@Test
	void anInstanceWithoutZoneHasNone() {
		assertThat(read(Wire.instance("payments", "a", 7).replace("\"zone\":\"az-1\",", "")).zone()).isNull();
	}

	@Test
	void ignoresFieldsAddedByANewerRegistry() {
		WatchedInstance instance = read(
				Wire.instance("payments", "a", 7).replaceFirst("\\{", "{\"canary\":{\"step\":3},"));

		assertThat(instance.id()).isEqualTo("a");
	}

	@Test
	void rejectsTheStringZeroAsWeight() {
		assertThatIllegalArgumentException().isThrownBy(() -> read(Wire.instance("payments", "a", "\"0\"", 7)))
			.withMessage("weight must be an integer from 0 to 10000; got the string \"0\"");
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"100\"", "100.0", "1.5", "1e2", "null", "true", "-1", "10001", "[100]", "{}",
			"99999999999999999999" })
	void rejectsEveryEffectiveWeightThatIsNotAnIntegerFromZeroToTenThousand(String effectiveWeight) {
		String json = Wire.instance("payments", "a", 7)
			.replace("\"effectiveWeight\":100", "\"effectiveWeight\":" + effectiveWeight);

		assertThatIllegalArgumentException().isThrownBy(() -> read(json))
			.withMessageStartingWith("effectiveWeight must be an integer from 0 to 10000; got ");
	}

	@ParameterizedTest
	@ValueSource(strings = { "0", "1", "9999", "10000" })
	void acceptsWeightsAtAndWithinTheBounds(String weight) {
		WatchedInstance instance = read(Wire.instance("payments", "a", weight, 7));

		assertThat(instance.weight()).isEqualTo(Integer.parseInt(weight));
		assertThat(instance.effectiveWeight()).isEqualTo(Integer.parseInt(weight));
	}

	@Test
	void rejectsAnInstanceWithoutWeight() {
		String json = Wire.instance("payments", "a", 7).replace("\"weight\":100,", "");

		assertThatIllegalArgumentException().isThrownBy(() -> read(json))
			.withMessage("weight must be an integer from 0 to 10000; got no value");
	}

	@Test
	void rejectsAPortGivenAsString() {
		String json = Wire.instance("payments", "a", 7).replace("\"port\":8080", "\"port\":\"8080\"");

		assertThatIllegalArgumentException().isThrownBy(() -> read(json))
			.withMessage("port must be an integer from 1 to 65535; got the string \"8080\"");
	}

	@Test
	void rejectsMetadataThatIsNotAllStrings() {
		String json = Wire.instance("payments", "a", 7).replace("\"2.4.1\"", "2.4");

		assertThatIllegalArgumentException().isThrownBy(() -> read(json))
			.withMessage("metadata.version must be a string; got the number 2.4");
	}

	@Test
	void rejectsALeaseExpiryThatIsNotAnInstant() {
		String json = Wire.instance("payments", "a", 7).replace("2026-11-30T10:00:30Z", "tomorrow");

		assertThatIllegalArgumentException().isThrownBy(() -> read(json))
			.withMessageStartingWith("leaseExpiresAt must be an ISO-8601 instant");
	}

	@Test
	void cutsAHugeReceivedValueShortInTheRefusal() {
		String json = Wire.instance("payments", "a", "\"" + "9".repeat(500) + "\"", 7);

		assertThatIllegalArgumentException().isThrownBy(() -> read(json))
			.withMessage("weight must be an integer from 0 to 10000; got the string \"" + "9".repeat(39) + "…");
	}

	@Test
	void theConstructorRefusesAWeightOutOfRange() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new WatchedInstance("payments", "a", "10.0.0.5", 8080, null, 10_001, 0, true, "SERVING",
					"PASSING", Map.of(), 30, Instant.EPOCH, 1))
			.withMessage("weight must be an integer from 0 to 10000; got 10001");
	}

	@Test
	void receivesTrafficOnlyWhenRoutableWithAPositiveEffectiveWeight() {
		assertThat(read(Wire.instance("payments", "a", "1", 7)).receivesTraffic()).isTrue();
		assertThat(read(Wire.instance("payments", "a", "0", 7)).receivesTraffic()).isFalse();
		assertThat(read(Wire.instance("payments", "a", "5", 7).replace("\"routable\":true", "\"routable\":false"))
			.receivesTraffic()).isFalse();
	}

	private static WatchedInstance read(String json) {
		return WatchedInstance.fromJson(Json.read(json));
	}

}

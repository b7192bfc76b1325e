package dev.ballast.support;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The builder writes the JSON the tests wrote by hand before it, member for member. */
class RegistrationBodyTest {

	@Test
	void writesTheMembersInTheOrderGiven() {
		assertThat(Registration.at("h", 80).json()).isEqualTo("{\"address\":\"h\",\"port\":80}");
		assertThat(Registration.at("10.0.0.5", 8080).weight(0).zone("az-1").metadata("version", "2.4.1").json())
			.isEqualTo(
					"{\"address\":\"10.0.0.5\",\"port\":8080,\"weight\":0,\"zone\":\"az-1\",\"metadata\":{\"version\":\"2.4.1\"}}");
		assertThat(Registration.at("10.0.0.9", 8080)
			.weight(100)
			.zone("az-1")
			.metadata("color", "blue")
			.leaseTtlSeconds(300)
			.json())
			.isEqualTo("{\"address\":\"10.0.0.9\",\"port\":8080,\"weight\":100,"
					+ "\"zone\":\"az-1\",\"metadata\":{\"color\":\"blue\"},\"leaseTtlSeconds\":300}");
		assertThat(Registration.at("h", 80).weight(7).leaseTtlSeconds(300).member("metadata", "{}").json())
			.isEqualTo("{\"address\":\"h\",\"port\":80,\"weight\":7,\"leaseTtlSeconds\":300,\"metadata\":{}}");
	}

	@Test
	void writesMetadataPairsInOrderAndOddValuesAsGiven() {
		assertThat(Registration.at("10.0.0.1", 80).metadata("v", "1", "team", "x").json())
			.isEqualTo("{\"address\":\"10.0.0.1\",\"port\":80,\"metadata\":{\"v\":\"1\",\"team\":\"x\"}}");
		assertThat(Registration.at("10.0.0.1", 8080).member("weight", "\"70\"").json())
			.isEqualTo("{\"address\":\"10.0.0.1\",\"port\":8080,\"weight\":\"70\"}");
	}

	@Test
	void escapesWhatJsonStringsMustEscape() {
		assertThat(Registration.at("a\"b\\c\n", 1).json()).isEqualTo("{\"address\":\"a\\\"b\\\\c\\u000a\",\"port\":1}");
	}

	@Test
	void isUnchangedByWhatIsBuiltFromIt() {
		Registration base = Registration.at("h", 1);
		base.weight(5);
		assertThat(base.json()).isEqualTo("{\"address\":\"h\",\"port\":1}");
	}

}

package dev.ballast.consul;

import java.util.List;

import dev.ballast.support.Consul;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Health ejections and operator actions share one count of what is out: a registrant's
 * failing check cannot take out what the guard just refused an operator, and a refusal
 * names an ejection by its real cause.
 */
@RegistryTest
class EjectionBudgetTest extends ConsulFixture {

	EjectionBudgetTest() {
		super("ejb");
	}

	/**
	 * Four at 100: maintenance of ga1 (the floor), maintenance of ga2 refused (50%), then
	 * ga2's check fails: it turns critical but stays routable, held by the cap.
	 */
	@Test
	void aFailingCheckCannotTakeOutWhatTheGuardRefused() {
		for (String id : List.of("ga1", "ga2", "ga3", "ga4")) {
			register(id, "300s", "");
		}
		assertThat(consul.put("/v1/agent/service/maintenance/" + id("ga1") + "?enable=true").status()).isEqualTo(200);
		assertThat(consul.put("/v1/agent/service/maintenance/" + id("ga2") + "?enable=true").status()).isEqualTo(409);

		assertThat(consul.put("/v1/agent/check/fail/service:" + id("ga2")).status()).isEqualTo(200);

		JsonNode ga2 = ballast("ga2");
		assertThat(ga2.get("health").asString()).isEqualTo("CRITICAL");
		assertThat(ga2.get("effectiveWeight").asInt()).as("held routable by the ejection cap").isEqualTo(100);
		assertThat(api.get("/v1/services/" + service).json().get("unroutableWeight").asLong()).isEqualTo(100);
	}

	/** The same registration reporting itself critical is held the same way. */
	@Test
	void aRegistrationReportingItselfCriticalIsHeldTheSameWay() {
		for (String id : List.of("ga1", "ga2", "ga3", "ga4")) {
			register(id, "300s", "");
		}
		assertThat(consul.put("/v1/agent/service/maintenance/" + id("ga1") + "?enable=true").status()).isEqualTo(200);

		Consul.Answer critical = consul.put("/v1/agent/service/register",
				definition("ga2", "300s", "").replace("\"TTL\":\"300s\"", "\"TTL\":\"300s\",\"Status\":\"critical\""));
		assertThat(critical.status()).as(critical.body()).isEqualTo(200);

		assertThat(ballast("ga2").get("health").asString()).isEqualTo("CRITICAL");
		assertThat(ballast("ga2").get("effectiveWeight").asInt()).isEqualTo(100);
	}

	/**
	 * The other order: ga2's failing check ejects it (nothing else out, an average
	 * instance); then maintenance of ga1 is refused, naming ga2 as ejected by its own
	 * report, not by a lease that "expired" minutes in the future.
	 */
	@Test
	void aRefusalNamesAnEjectionByItsRealCause() {
		for (String id : List.of("ga1", "ga2", "ga3", "ga4")) {
			register(id, "300s", "");
		}
		assertThat(consul.put("/v1/agent/check/fail/service:" + id("ga2")).status()).isEqualTo(200);
		assertThat(ballast("ga2").get("effectiveWeight").asInt()).as("ejected").isZero();

		Consul.Answer refused = consul.put("/v1/agent/service/maintenance/" + id("ga1") + "?enable=true");

		assertThat(refused.status()).isEqualTo(409);
		assertThat(refused.body()).contains(id("ga2") + " (ejected: it reported itself critical)")
			.doesNotContain("lease");
	}

}

package dev.ballast.consul;

import java.util.List;
import java.util.Map;

import dev.ballast.support.Consul;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Consul's agent endpoints against the whole registry: registrations typed at the border,
 * TTL checks as leases, deregistration and maintenance, each seen through both Consul's
 * answers and Ballast's own API.
 */
@RegistryTest
class ConsulAgentTest extends ConsulFixture {

	ConsulAgentTest() {
		super("cns");
	}

	@Test
	void registersWithMetaWeightAsTheTypedWeightAndListsItBack() {
		Consul.Answer registered = consul.put("/v1/agent/service/register",
				definition("a", "30s", ",\"Meta\":{\"weight\":\"50\",\"version\":\"2\"}"));

		assertThat(registered.status()).isEqualTo(200);
		JsonNode stored = ballast("a");
		assertThat(stored.get("weight").isInt()).isTrue();
		assertThat(stored.get("weight").intValue()).isEqualTo(50);
		assertThat(stored.get("metadata").has("weight")).as("weight is never stored as metadata").isFalse();
		assertThat(stored.get("metadata").get("version").stringValue()).isEqualTo("2");
		assertThat(stored.get("leaseTtlSeconds").intValue()).isEqualTo(30);
		JsonNode listed = consul.get("/v1/health/service/" + service).json().get(0);
		assertThat(listed.get("Service").get("ID").stringValue()).isEqualTo(id("a"));
		assertThat(listed.get("Service").get("Service").stringValue()).isEqualTo(service);
		assertThat(listed.get("Service").get("Port").intValue()).isEqualTo(8080);
		assertThat(listed.get("Service").get("Meta").get("weight").stringValue()).isEqualTo("50");
		assertThat(listed.get("Service").get("Meta").get("version").stringValue()).isEqualTo("2");
		assertThat(listed.get("Checks").get(0).get("CheckID").stringValue()).isEqualTo("service:" + id("a"));
		assertThat(listed.get("Checks").get(0).get("Status").stringValue()).isEqualTo("passing");
	}

	@Test
	void takesWeightsPassingAsTheTypedWeight() {
		consul.put("/v1/agent/service/register", definition("a", "30s", ",\"Weights\":{\"Passing\":7,\"Warning\":1}"));

		assertThat(ballast("a").get("weight").intValue()).isEqualTo(7);
		assertThat(consul.get("/v1/catalog/service/" + service)
			.json()
			.get(0)
			.get("ServiceWeights")
			.get("Passing")
			.intValue()).isEqualTo(7);
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"050\"", "\"1.0\"", "\" 5\"", "\"-1\"", "\"10001\"", "\"abc\"", "\"\"", "\"1e2\"", "5",
			"null" })
	void refusesAMetaWeightThatIsNotACanonicalDecimalAndWritesNothing(String weight) {
		Consul.Answer refused = consul.put("/v1/agent/service/register",
				definition("a", "30s", ",\"Meta\":{\"weight\":" + weight + "}"));

		assertThat(refused.status()).isEqualTo(400);
		assertThat(refused.body()).contains("Meta.weight");
		assertThat(api.get("/v1/services/" + service).status()).isEqualTo(404);
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"7\"", "7.5", "-1", "10001", "true" })
	void refusesWeightsPassingThatIsNotAnIntegerInRange(String weight) {
		Consul.Answer refused = consul.put("/v1/agent/service/register",
				definition("a", "30s", ",\"Weights\":{\"Passing\":" + weight + "}"));

		assertThat(refused.status()).isEqualTo(400);
		assertThat(refused.body()).contains("Weights.Passing");
		assertThat(api.get("/v1/services/" + service).status()).isEqualTo(404);
	}

	/**
	 * Each number Ballast types at this border is refused in the words of its type's one
	 * rule: what was expected and what came.
	 */
	@Test
	void aRefusedNumberSaysWhatWasExpectedAndWhatCame() {
		assertThat(consul.put("/v1/agent/service/register", definition("a", "30s", ",\"Meta\":{\"weight\":\"050\"}"))
			.body()
			.strip()).isEqualTo(
					"Invalid Meta.weight: must be a canonical decimal from \"0\" to \"10000\"; got the string \"050\"");
		assertThat(consul.put("/v1/agent/service/register", definition("a", "30s", ",\"Weights\":{\"Passing\":7.5}"))
			.body()
			.strip()).isEqualTo("Invalid Weights.Passing: must be an integer from 0 to 10000; got the number 7.5");
		assertThat(consul
			.put("/v1/agent/service/register", definition("a", "30s", ",\"Weights\":{\"Passing\":1,\"Warning\":-1}"))
			.body()
			.strip()).isEqualTo("Invalid Weights.Warning: must be an integer from 0 to 10000; got the number -1");
		assertThat(consul.put("/v1/agent/service/register", definition("a", "301s", "")).body().strip())
			.isEqualTo("Invalid Check.TTL: must be a duration of whole seconds from 5s to 300s, which becomes the "
					+ "lease; got \"301s\"");
		assertThat(consul
			.put("/v1/agent/service/register",
					"{\"Name\":\"%s\",\"Port\":65536,\"Check\":{\"TTL\":\"30s\"}}".formatted(service))
			.body()
			.strip()).isEqualTo(
					"Invalid Port: Ballast needs the instance's port, an integer from 1 to 65535; got the number 65536");
		assertThat(api.get("/v1/services/" + service).status()).isEqualTo(404);
	}

	@Test
	void refusesWeightsAndMetaWeightThatDisagree() {
		Consul.Answer refused = consul.put("/v1/agent/service/register",
				definition("a", "30s", ",\"Weights\":{\"Passing\":5},\"Meta\":{\"weight\":\"6\"}"));

		assertThat(refused.status()).isEqualTo(400);
		assertThat(refused.body()).contains("Weights.Passing").contains("Meta.weight");
	}

	@Test
	void refusesChecksBallastDoesNotRunOrMayNotRunNamingTheField() {
		Map<String, String> refused = Map.of("{\"Args\":[\"/bin/check\"],\"Interval\":\"10s\"}", "Check.Args",
				"{\"UDP\":\"10.0.0.1:53\",\"Interval\":\"10s\"}", "Check.UDP",
				"{\"HTTP\":\"http://10.0.0.9:8080/health\",\"Interval\":\"10s\"}", "Check.HTTP",
				"{\"HTTP\":\"http://10.0.0.1:8080/health\",\"Interval\":\"1ns\"}", "Check.Interval",
				"{\"HTTP\":\"http://10.0.0.1:8080/health\",\"Interval\":\"10s\",\"Timeout\":\"10s\"}", "Check.Timeout",
				"{\"HTTP\":\"http://10.0.0.1:8080/health\",\"Interval\":\"10s\",\"Method\":\"POST\"}", "Check.Method",
				"{\"GRPC\":\"10.0.0.1:8080\",\"Interval\":\"10s\",\"GRPCUseTLS\":true}", "Check.GRPCUseTLS",
				"{\"TCP\":\"10.0.0.1:8080\",\"TTL\":\"10s\"}", "Check.TCP",
				"{\"HTTP\":\"http://10.0.0.1:8080/health\"}", "Check.Interval");
		refused.forEach((check, field) -> {
			Consul.Answer answer = consul.put("/v1/agent/service/register",
					"{\"ID\":\"%s-a\",\"Name\":\"%s\",\"Address\":\"10.0.0.1\",\"Port\":8080,\"Check\":%s}"
						.formatted(service, service, check));
			assertThat(answer.status()).as(check).isEqualTo(400);
			assertThat(answer.body()).as(check).contains(field);
		});
		assertThat(api.get("/v1/services/" + service).status()).isEqualTo(404);
	}

	@Test
	void refusesARegistrationWithoutACheckOrWithATtlOutsideTheLeaseRange() {
		String none = "{\"ID\":\"a\",\"Name\":\"%s\",\"Address\":\"10.0.0.1\",\"Port\":8080}".formatted(service);
		assertThat(consul.put("/v1/agent/service/register", none).body()).contains("TTL check")
			.contains("HTTP, TCP or gRPC check");
		Consul.Answer shortTtl = consul.put("/v1/agent/service/register", definition("a", "2s", ""));
		assertThat(shortTtl.status()).isEqualTo(400);
		assertThat(shortTtl.body()).contains("Check.TTL");
	}

	@Test
	void refusesNamesAndIdsOutsideBallastsPatterns() {
		Consul.Answer upper = consul.put("/v1/agent/service/register",
				"{\"Name\":\"Web\",\"Port\":80,\"Check\":{\"TTL\":\"10s\"}}");
		assertThat(upper.status()).isEqualTo(400);
		assertThat(upper.body()).contains("Name").contains("\"Web\"");
		Consul.Answer id = consul.put("/v1/agent/service/register", definition("a b", "30s", ""));
		assertThat(id.status()).isEqualTo(400);
		assertThat(id.body()).contains("ID");
		assertThat(consul.put("/v1/agent/service/deregister/a%20b").status()).isEqualTo(400);
	}

	@Test
	void toleratesConsulsNullsExtraFieldsAnyCaseAndAChunkedBody() {
		String spring = """
				{"id":"%s","name":"%s","tags":[],"address":"10.0.0.1","meta":{"secure":"false"},"port":8080,
				 "enableTagOverride":null,"Weights":null,"TaggedAddresses":{"lan":{"Address":"10.0.0.1","Port":8080}},
				 "Proxy":null,"Connect":null,"Kind":"",
				 "check":{"ttl":"10s","deregister_critical_service_after":"90m","Name":"ttl","Notes":null,
				          "Status":"passing","Interval":null,"HTTP":"","Args":[]}}""".formatted(id("a"), service);

		Consul.Answer registered = consul.putChunked("/v1/agent/service/register", spring);

		assertThat(registered.status()).as(registered.body()).isEqualTo(200);
		assertThat(ballast("a").get("leaseTtlSeconds").intValue()).isEqualTo(10);
		assertThat(ballast("a").get("weight").intValue()).as("the service's default weight").isEqualTo(100);
	}

	/**
	 * Consul's own examples send the definition with {@code curl --data @payload.json},
	 * whose body is labelled a form; Consul reads it as JSON whatever its label.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "application/x-www-form-urlencoded", "text/plain", "" })
	void readsTheDefinitionWhateverContentTypeItIsLabelledWith(String contentType) {
		String definition = """
				{"ID":"%s","Name":"%s","Port":8080,"Check":{"TTL":"30s"}}""".formatted(id("a"), service);
		Map<String, String> headers = contentType.isEmpty() ? Map.of() : Map.of("Content-Type", contentType);

		Consul.Answer registered = consul.send("PUT", "/v1/agent/service/register", definition, headers, false);

		assertThat(registered.status()).as(registered.body()).isEqualTo(200);
		assertThat(ballast("a").get("port").intValue()).isEqualTo(8080);
	}

	@Test
	void refusesABodyThatIsNotJson() {
		assertThat(consul.put("/v1/agent/service/register", "{\"Name\":").status()).isEqualTo(400);
		assertThat(consul.put("/v1/agent/service/register", "[]").status()).isEqualTo(400);
		assertThat(consul.put("/v1/agent/service/register").status()).isEqualTo(400);
	}

	@Test
	void deregistersByIdAndAnswers404ForAnUnknownOne() {
		register("a", "30s", "");

		assertThat(consul.put("/v1/agent/service/deregister/" + id("a")).status()).isEqualTo(200);
		assertThat(api.get("/v1/services/%s/instances/%s".formatted(service, id("a"))).status()).isEqualTo(404);
		Consul.Answer unknown = consul.put("/v1/agent/service/deregister/" + id("a"));
		assertThat(unknown.status()).isEqualTo(404);
		assertThat(unknown.body()).contains("Unknown service ID");
	}

	@Test
	void passesTheCheckAsAHeartbeatAlsoWithAnEncodedColon() {
		register("a", "30s", "");

		assertThat(consul.put("/v1/agent/check/pass/service:" + id("a")).status()).isEqualTo(200);
		assertThat(consul.put("/v1/agent/check/pass/service%3A" + id("a") + "?note=ok").status()).isEqualTo(200);
		assertThat(consul.put("/v1/agent/check/warn/service%3a" + id("a")).status()).isEqualTo(200);
		assertThat(ballast("a").get("health").stringValue()).isEqualTo("PASSING");
		Consul.Answer unknown = consul.put("/v1/agent/check/pass/service:nobody-" + service);
		assertThat(unknown.status()).as("Spring Cloud Consul registers again on a 404").isEqualTo(404);
		assertThat(consul.put("/v1/agent/check/pass/serfHealth").status()).isEqualTo(404);
		assertThat(consul.put("/v1/agent/check/update/service:" + id("a")).status()).isEqualTo(404);
	}

	@Test
	void aFailingCheckEjectsWithinTheEjectionCapAndAPassBringsItBack() {
		for (String id : List.of("a", "b", "c", "d", "e")) {
			register(id, "30s", "");
		}

		assertThat(consul.put("/v1/agent/check/fail/service:" + id("a")).status()).isEqualTo(200);
		assertThat(consul.put("/v1/agent/check/fail/service:" + id("b")).status()).isEqualTo(200);

		// 20% of 500 is 100: a is ejected; b stays routable, critical, held by the cap.
		assertThat(ballast("a").get("routable").booleanValue()).isFalse();
		assertThat(ballast("a").get("health").stringValue()).isEqualTo("CRITICAL");
		assertThat(ballast("b").get("routable").booleanValue()).isTrue();
		assertThat(ballast("b").get("health").stringValue()).isEqualTo("CRITICAL");
		Consul.Answer passing = consul.get("/v1/health/service/%s?passing".formatted(service));
		assertThat(passing.weights()).containsOnlyKeys(id("b"), id("c"), id("d"), id("e"));
		List<String> statuses = consul.get("/v1/health/checks/" + service)
			.json()
			.valueStream()
			.map(check -> check.get("ServiceID").stringValue() + "=" + check.get("Status").stringValue())
			.toList();
		assertThat(statuses).contains(id("a") + "=critical", id("b") + "=critical", id("c") + "=passing");

		consul.put("/v1/agent/check/pass/service:" + id("a"));
		assertThat(ballast("a").get("routable").booleanValue()).isTrue();
		assertThat(ballast("a").get("health").stringValue()).isEqualTo("PASSING");
		assertThat(consul.get("/v1/health/service/" + service).weights()).containsKeys(id("a"), id("b"));
	}

	@Test
	void maintenanceIsGuardedAndEndingItNeverUndoesADrain() {
		for (String id : List.of("a", "b", "c", "d")) {
			register(id, "30s", "");
		}

		assertThat(consul.put("/v1/agent/service/maintenance/" + id("a") + "?enable=true&reason=kernel").status())
			.isEqualTo(200);
		assertThat(ballast("a").get("mode").stringValue()).isEqualTo("MAINTENANCE");
		assertThat(ballast("a").get("modeReason").stringValue()).isEqualTo("kernel");
		assertThat(consul.get("/v1/health/service/" + service).weights()).doesNotContainKey(id("a"));
		Consul.Answer refused = consul.put("/v1/agent/service/maintenance/" + id("b") + "?enable=true");
		assertThat(refused.status()).isEqualTo(409);
		assertThat(refused.body()).contains("unroutable");
		assertThat(ballast("b").get("mode").stringValue()).isEqualTo("SERVING");
		assertThat(consul.put("/v1/agent/service/maintenance/" + id("b")).status()).isEqualTo(400);
		assertThat(consul.put("/v1/agent/service/maintenance/" + id("b") + "?enable=maybe").status()).isEqualTo(400);

		assertThat(consul.put("/v1/agent/service/maintenance/" + id("a") + "?enable=false").status()).isEqualTo(200);
		assertThat(ballast("a").get("mode").stringValue()).isIn("WARMING", "SERVING");
		// a may still be warming up, holding what its ramp has not given back: force.
		assertThat(api
			.send("POST", "/v1/services/%s/instances/%s/drain".formatted(service, id("b")),
					"{\"durationSeconds\":1,\"force\":true}", null)
			.status()).isEqualTo(202);
		assertThat(consul.put("/v1/agent/service/maintenance/" + id("b") + "?enable=false").status()).isEqualTo(200);
		assertThat(ballast("b").get("mode").stringValue()).isIn("DRAINING", "DRAINED");
	}

	@Test
	void aRegistrationOfWeightZeroIsGuardedAndNeverListed() {
		for (String id : List.of("a", "b")) {
			register(id, "30s", "");
		}

		// One of two may go when nothing else is out (the small-service rule); not both.
		assertThat(consul.put("/v1/agent/service/register", definition("a", "30s", ",\"Meta\":{\"weight\":\"0\"}"))
			.status()).isEqualTo(200);
		Consul.Answer refused = consul.put("/v1/agent/service/register",
				definition("b", "30s", ",\"Meta\":{\"weight\":\"0\"}"));
		assertThat(refused.status()).isEqualTo(409);
		assertThat(ballast("b").get("weight").intValue()).isEqualTo(100);

		register("z", "30s", ",\"Meta\":{\"weight\":\"0\"}");
		assertThat(ballast("z").get("weight").intValue()).isZero();
		assertThat(consul.get("/v1/health/service/%s?passing=false".formatted(service)).weights())
			.containsOnlyKeys(id("b"));
		assertThat(consul.get("/v1/catalog/service/" + service).json().size()).isEqualTo(1);
	}

	@Test
	void anIdRegisteredInAnotherServiceIsRefused() {
		register("shared", "30s", "");
		String other = "{\"ID\":\"%s\",\"Name\":\"%s-x\",\"Port\":1,\"Check\":{\"TTL\":\"10s\"}}"
			.formatted(id("shared"), service);

		Consul.Answer refused = consul.put("/v1/agent/service/register", other);

		assertThat(refused.status()).isEqualTo(409);
		assertThat(api.get("/v1/services/" + service + "-x").status()).isEqualTo(404);
	}

}

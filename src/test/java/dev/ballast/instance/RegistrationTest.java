package dev.ballast.instance;

import java.util.stream.Stream;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/** Registration, queries and deregistration over HTTP against real PostgreSQL. */
@RegistryTest
class RegistrationTest {

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	Api api;

	String service;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
		service = Names.service("reg");
	}

	String path(String id) {
		return "/v1/services/%s/instances/%s".formatted(service, id);
	}

	@Test
	void registersWithIntegerWeightAndCreatesTheService() {
		Api.Reply reply = api.put(path("10.0.0.5:8080"),
				Registration.at("10.0.0.5", 8080).weight(0).zone("az-1").metadata("version", "2.4.1"));

		assertThat(reply.status()).isEqualTo(201);
		JsonNode instance = reply.json();
		assertThat(instance.get("weight").isInt()).isTrue();
		assertThat(instance.get("weight").intValue()).isZero();
		assertThat(instance.get("effectiveWeight").isInt()).isTrue();
		assertThat(instance.get("routable").booleanValue()).isFalse();
		assertThat(instance.get("mode").asString()).isEqualTo("SERVING");
		assertThat(instance.get("health").asString()).isEqualTo("PASSING");
		assertThat(instance.get("metadata").get("version").asString()).isEqualTo("2.4.1");
		assertThat(instance.get("leaseTtlSeconds").intValue()).isEqualTo(30);
		assertThat(instance.get("revision").longValue()).isEqualTo(1);
		assertThat(reply.header("ETag")).hasValue("\"1\"");
		assertThat(api.get("/v1/services/" + service).json().get("defaultWeight").intValue()).isEqualTo(100);
	}

	@Test
	void usesTheServiceDefaultsWhenWeightAndTtlAreLeftOut() {
		JsonNode instance = api.put(path("a"), Registration.at("h.example", 1)).json();

		assertThat(instance.get("weight").intValue()).isEqualTo(100);
		assertThat(instance.get("effectiveWeight").intValue()).isEqualTo(100);
		assertThat(instance.get("routable").booleanValue()).isTrue();
		assertThat(instance.get("leaseTtlSeconds").intValue()).isEqualTo(30);
		assertThat(instance.has("zone")).isFalse();
	}

	@Test
	void replacesAnInstanceAndBumpsTheRevision() {
		api.put(path("a"), Registration.at("10.0.0.1", 80).weight(10));

		Api.Reply replaced = api.put(path("a"), Registration.at("10.0.0.1", 80).weight(20));

		assertThat(replaced.status()).isEqualTo(200);
		assertThat(replaced.json().get("weight").intValue()).isEqualTo(20);
		assertThat(replaced.json().get("revision").longValue()).isEqualTo(2);
		assertThat(api.get(path("a")).json().get("weight").intValue()).isEqualTo(20);
	}

	@Test
	void identicalRegistrationOnlyRenewsTheLeaseAndSpendsNoRevision() {
		String body = Registration.at("10.0.0.1", 80).weight(10).json();
		Api.Reply first = api.put(path("a"), body);

		Api.Reply again = api.put(path("a"), body);

		assertThat(again.status()).isEqualTo(200);
		assertThat(again.json().get("revision").longValue()).isEqualTo(1);
		assertThat(api.get("/v1/services/" + service).json().get("revision").longValue()).isEqualTo(1);
		assertThat(again.json().get("leaseExpiresAt").asString())
			.isGreaterThanOrEqualTo(first.json().get("leaseExpiresAt").asString());
		assertThat(changeRows()).isEqualTo(1);
	}

	@Test
	void refusesStringWeightUnderStrictPolicyWithAProblemPointingAtWeight() {
		Api.Reply reply = api.put(path("a"), "{\"address\":\"127.0.0.1\",\"port\":9000,\"weight\":\"0\"}");

		assertThat(reply.status()).isEqualTo(422);
		assertThat(reply.contentType())
			.hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
		JsonNode error = reply.json().get("errors").get(0);
		assertThat(error.get("pointer").asString()).isEqualTo("/weight");
		assertThat(error.get("detail").asString())
			.startsWith("weight must be an integer from 0 to 10000; got the string \"0\"");
	}

	static Stream<Arguments> refusedBodies() {
		return Stream.of(
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":\"100\"}", "/weight", "got the string \"100\""),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":1.5}", "/weight", "got the number 1.5"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":100.0}", "/weight", "got the number 100.0"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":-1}", "/weight", "got the number -1"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":10001}", "/weight", "got the number 10001"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":null}", "/weight", "got null"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":true}", "/weight", "got true"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":[]}", "/weight", "got an array"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":{}}", "/weight", "got an object"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":\"NaN\"}", "/weight", "got the string \"NaN\""),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"weight\":1e400}", "/weight", "got the number"),
				Arguments.of("{\"address\":\"h\",\"port\":\"8080\"}", "/port", "got the string \"8080\""),
				Arguments.of("{\"address\":\"h\",\"port\":8080.0}", "/port", "got the number 8080.0"),
				Arguments.of("{\"address\":\"h\",\"port\":99999999999}", "/port", "got the number 99999999999"),
				Arguments.of("{\"address\":\"h\",\"port\":0}", "/port", "got the number 0"),
				Arguments.of("{\"address\":\"h\"}", "/port", "port must be an integer from 1 to 65535"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"wieght\":5}", "/wieght", "unknown field \"wieght\""),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"leaseTtlSeconds\":4}", "/leaseTtlSeconds",
						"got the number 4"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"leaseTtlSeconds\":\"30\"}", "/leaseTtlSeconds",
						"got the string \"30\""),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"zone\":null}", "/zone", "got null"),
				Arguments.of("{\"address\":5,\"port\":1}", "/address", "got the number 5"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"metadata\":{\"weight\":\"5\"}}", "/metadata/weight",
						"reserved"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"metadata\":{\"WEIGHT\":\"5\"}}", "/metadata/WEIGHT",
						"reserved"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"metadata\":{\"ballast.owner\":\"x\"}}",
						"/metadata/ballast.owner", "reserved"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"metadata\":{\"v\":1}}", "/metadata/v",
						"got the number 1"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"metadata\":{\"v\":null}}", "/metadata/v", "null"),
				Arguments.of("{\"address\":\"h\",\"port\":1,\"metadata\":{\"bad key\":\"x\"}}", "/metadata/bad key",
						"metadata keys must match"),
				Arguments.of("[]", "", "the body must be a JSON object"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("refusedBodies")
	void refusesSchemaViolationsWith422NamingTheFieldAndWritesNothing(String body, String pointer, String detail) {
		Api.Reply reply = api.put(path("a"), body);

		assertThat(reply.status()).as(reply.body()).isEqualTo(422);
		assertThat(reply.json()
			.get("errors")
			.valueStream()
			.filter(error -> error.get("pointer").asString().equals(pointer))
			.map(error -> error.get("detail").asString())).as(reply.body())
			.anySatisfy(text -> assertThat(text).contains(detail));
		assertThat(api.get("/v1/services/" + service).status()).as("no partial write: service not created")
			.isEqualTo(404);
	}

	@ParameterizedTest
	@MethodSource("unreadableBodies")
	void refusesUnparseableJsonWith400(String body) {
		Api.Reply reply = api.put(path("a"), body);

		assertThat(reply.status()).isEqualTo(400);
		assertThat(reply.json().get("detail").asString()).contains("JSON");
		assertThat(api.get("/v1/services/" + service).status()).isEqualTo(404);
	}

	static Stream<String> unreadableBodies() {
		return Stream.of("{", "{\"address\":\"h\",\"port\":1} trailing", "{\"address\":\"h\",\"port\":1,\"port\":2}",
				"{'address':'h'}", "");
	}

	@Test
	void refusesBadServiceAndInstanceNames() {
		Api.Reply badService = api.put("/v1/services/Bad_Name/instances/a", Registration.at("h", 1));
		Api.Reply badId = api.put(path("a%20b"), Registration.at("h", 1));

		assertThat(badService.status()).isEqualTo(422);
		assertThat(badService.json().get("errors").get(0).get("pointer").asString()).isEqualTo("#service");
		assertThat(badId.status()).isEqualTo(422);
		assertThat(badId.json().get("errors").get(0).get("pointer").asString()).isEqualTo("#id");
	}

	@Test
	void listsInstancesWithTheirRevisionInBodyAndHeader() {
		api.put(path("b"), Registration.at("10.0.0.2", 80));
		api.put(path("a"), Registration.at("10.0.0.1", 80));

		Api.Reply list = api.get("/v1/services/%s/instances".formatted(service));

		assertThat(list.status()).isEqualTo(200);
		assertThat(list.header("X-Ballast-Index")).hasValue("2");
		assertThat(list.json().get("revision").longValue()).isEqualTo(2);
		assertThat(list.json().get("instances").valueStream().map(i -> i.get("id").asString())).containsExactly("a",
				"b");
	}

	@Test
	void listsServicesWithCountsAndTotals() {
		api.put(path("a"), Registration.at("10.0.0.1", 80).weight(30));
		api.put(path("b"), Registration.at("10.0.0.2", 80).weight(0));

		JsonNode summary = api.get("/v1/services")
			.json()
			.valueStream()
			.filter(s -> s.get("name").asString().equals(service))
			.findFirst()
			.orElseThrow();
		JsonNode detail = api.get("/v1/services/" + service).json();

		assertThat(summary.get("instances").intValue()).isEqualTo(2);
		assertThat(summary.get("routable").intValue()).isEqualTo(1);
		assertThat(summary.get("totalEffectiveWeight").intValue()).isEqualTo(30);
		assertThat(summary.get("revision").intValue()).isEqualTo(2);
		assertThat(detail.get("passing").intValue()).isEqualTo(2);
		assertThat(detail.get("critical").intValue()).isZero();
		assertThat(detail.get("nominalWeight").intValue()).isEqualTo(30);
	}

	@Test
	void deregistersAndThen404s() {
		api.put(path("a"), Registration.at("10.0.0.1", 80));

		assertThat(api.delete(path("a")).status()).isEqualTo(204);
		assertThat(api.delete(path("a")).status()).isEqualTo(404);
		assertThat(api.get(path("a")).status()).isEqualTo(404);
		assertThat(api.get("/v1/services/" + service).json().get("revision").longValue()).isEqualTo(2);
		assertThat(api.delete("/v1/services/%s/instances/a".formatted(Names.service("none"))).status()).isEqualTo(404);
	}

	@Test
	void answersUnknownServicesAndInstancesWith404() {
		assertThat(api.get("/v1/services/" + service).status()).isEqualTo(404);
		assertThat(api.get("/v1/services/%s/instances".formatted(service)).status()).isEqualTo(404);
		assertThat(api.get(path("a")).status()).isEqualTo(404);
	}

	private int changeRows() {
		return jdbc.sql("SELECT count(*) FROM change_log WHERE service = ?")
			.param(service)
			.query(Integer.class)
			.single();
	}

}

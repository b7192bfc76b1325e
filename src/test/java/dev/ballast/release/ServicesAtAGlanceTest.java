package dev.ballast.release;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service list carries what an overview needs (the console draws it): nominal weight,
 * the guard's budget in use and its limit, the policy, the release under way, the count
 * of instances in each health and mode, and the tags.
 */
@RegistryTest
class ServicesAtAGlanceTest {

	@LocalServerPort
	int port;

	@Test
	void theListShowsTheBudgetInUseAgainstItsLimit() {
		Api api = Api.on(port);
		String service = Names.service("glance");
		String instances = "/v1/services/%s/instances/".formatted(service);
		for (String id : new String[] { "a", "b", "c", "d" }) {
			assertThat(api.put(instances + id, Registration.at("10.0.0.1", 80).weight(100)).status()).isEqualTo(201);
		}
		assertThat(api.patch("/v1/services/" + service, "{\"maxUnroutablePercent\":50,\"weightPolicy\":\"NORMALIZE\"}")
			.status()).isEqualTo(200);
		JsonNode fresh = summary(api, service);
		assertThat(fresh.get("nominalWeight").asLong()).isEqualTo(400);
		assertThat(fresh.get("unroutableWeight").asLong()).isZero();
		assertThat(fresh.get("maxUnroutablePercent").asInt()).isEqualTo(50);
		assertThat(fresh.get("weightPolicy").asString()).isEqualTo("NORMALIZE");
		assertThat(fresh.has("releaseUnderWay")).isFalse();

		assertThat(api.send("POST", instances + "a/drain", "{\"durationSeconds\":0}", null).status()).isEqualTo(202);
		assertThat(api.patch(instances + "b", "{\"weight\":0}").status()).isEqualTo(200);

		JsonNode held = summary(api, service);
		// a drained and b held at 0 by hand both keep their nominal 100 and count in the
		// budget; c and d carry the traffic.
		assertThat(held.get("nominalWeight").asLong()).isEqualTo(400);
		assertThat(held.get("unroutableWeight").asLong()).isEqualTo(200);
		assertThat(held.get("totalEffectiveWeight").asLong()).isEqualTo(200);
		assertThat(held.get("routable").asInt()).isEqualTo(2);
		assertThat(api.get("/v1/services/" + service).json().get("unroutableWeight").asLong()).isEqualTo(200);
	}

	@Test
	void theListNamesTheReleaseUnderWayUntilItEnds() {
		Api api = Api.on(port);
		String service = Names.service("glance");
		String instances = "/v1/services/%s/instances/".formatted(service);
		api.put(instances + "b1", Registration.at("10.0.0.1", 80).weight(100).metadata("color", "blue"));
		api.put(instances + "g1", Registration.at("10.0.0.2", 80).weight(100).metadata("color", "green"));
		Api.Reply started = api.send("POST", "/v1/services/%s/releases".formatted(service),
				"{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"green\"},\"steps\":[10,50,100]}", null);
		assertThat(started.status()).isEqualTo(201);
		long id = started.json().get("id").asLong();

		assertThat(summary(api, service).get("releaseUnderWay").asLong()).isEqualTo(id);

		assertThat(api.send("POST", "/v1/services/%s/releases/%d/abort".formatted(service, id), null, null).status())
			.isEqualTo(200);
		assertThat(summary(api, service).has("releaseUnderWay")).isFalse();
	}

	@Test
	void theListCountsEachModeAndCarriesTheTagsOfTheInstances() {
		Api api = Api.on(port);
		String service = Names.service("glance");
		String instances = "/v1/services/%s/instances/".formatted(service);
		api.put(instances + "a", Registration.at("10.0.0.1", 80).weight(100).tags("alpha", "v2"));
		api.put(instances + "b", Registration.at("10.0.0.2", 80).weight(100).tags("Zeta", "alpha"));
		api.put(instances + "c", Registration.at("10.0.0.3", 80).weight(100));
		api.put(instances + "d", Registration.at("10.0.0.4", 80).weight(100));
		assertThat(api.send("POST", instances + "a/drain", "{\"durationSeconds\":60}", null).status()).isEqualTo(202);
		assertThat(api.send("POST", instances + "b/maintenance", "{\"reason\":\"disk\",\"force\":true}", null).status())
			.isEqualTo(202);
		assertThat(api.send("POST", instances + "c/drain", "{\"durationSeconds\":0,\"force\":true}", null).status())
			.isEqualTo(202);

		JsonNode summary = summary(api, service);
		assertThat(summary.get("instances").asInt()).isEqualTo(4);
		assertThat(summary.get("draining").asInt()).isEqualTo(1);
		assertThat(summary.get("maintenance").asInt()).isEqualTo(1);
		assertThat(summary.get("drained").asInt()).isEqualTo(1);
		assertThat(summary.get("passing").asInt()).isEqualTo(4);
		assertThat(summary.get("critical").asInt()).isZero();
		assertThat(summary.get("held").asInt()).isZero();
		assertThat(summary.get("ejected").asInt()).isZero();
		// Once each, in code point order (upper case first), whatever the database's
		// collation.
		assertThat(summary.get("tags").valueStream().map(JsonNode::asString)).containsExactly("Zeta", "alpha", "v2");
	}

	private static JsonNode summary(Api api, String service) {
		Api.Reply list = api.get("/v1/services");
		assertThat(list.status()).isEqualTo(200);
		return list.json()
			.valueStream()
			.filter(s -> s.get("name").asString().equals(service))
			.findFirst()
			.orElseThrow();
	}

}

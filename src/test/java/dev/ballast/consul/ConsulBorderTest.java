package dev.ballast.consul;

import dev.ballast.support.Consul;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What PostgreSQL cannot store, and what Consul's case-blind reading cannot tell apart,
 * sent through the Consul-compatible entrance: refused with 400 naming the field, and
 * nothing written. Each was a 500, or silently first-wins.
 */
@RegistryTest
class ConsulBorderTest extends ConsulFixture {

	ConsulBorderTest() {
		super("cbd");
	}

	@Test
	void refusesMetaHoldingNul() {
		Consul.Answer answer = consul.put("/v1/agent/service/register",
				definition("i1", "30s", ",\"Meta\":{\"k\":\"a\\u0000b\"}"));
		assertThat(answer.status()).as(answer.body()).isEqualTo(400);
		assertThat(answer.body()).contains("Meta.k", "U+0000");
		assertThat(api.get("/v1/services/%s/instances/%s".formatted(service, id("i1"))).status()).isEqualTo(404);
	}

	@Test
	void refusesAMaintenanceReasonHoldingNul() {
		for (String name : java.util.List.of("i1", "i2", "i3", "i4")) {
			register(name, "300s", "");
		}
		Consul.Answer answer = consul
			.put("/v1/agent/service/maintenance/%s?enable=true&reason=a%%00b".formatted(id("i1")));
		assertThat(answer.status()).as(answer.body()).isEqualTo(400);
		assertThat(answer.body()).contains("reason", "U+0000");
		assertThat(ballast("i1").get("mode").asString()).isEqualTo("SERVING");
	}

	@Test
	void refusesAFieldSentInTwoSpellings() {
		Consul.Answer answer = consul.put("/v1/agent/service/register",
				definition("i1", "30s", ",\"Weights\":{\"Passing\":5},\"weights\":{\"Passing\":7}"));
		assertThat(answer.status()).as(answer.body()).isEqualTo(400);
		assertThat(answer.body()).contains("Weights", "\"weights\"", "once");
		assertThat(api.get("/v1/services/%s/instances/%s".formatted(service, id("i1"))).status()).isEqualTo(404);
	}

}

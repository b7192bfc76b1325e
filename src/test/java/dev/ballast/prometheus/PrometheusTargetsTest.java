package dev.ballast.prometheus;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.ballast.support.Properties.anyChars;
import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Prometheus HTTP service discovery endpoint against a running registry on real
 * PostgreSQL: only routable instances become targets, labelled with what Ballast knows of
 * them, in the shape Prometheus reads.
 */
@RegistryTest
class PrometheusTargetsTest {

	@LocalServerPort
	int port;

	Api api;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
	}

	@Test
	void listsRoutableInstancesWithTheirLabelsAndLeavesOutWeightZeroDrainedAndMaintenance() {
		String service = Names.service("prom");
		register(service, "a",
				Registration.at("10.0.0.1", 9100)
					.weight(100)
					.zone("az-1")
					.metadata("version", "2.4.1", "team.name", "pay")
					.tags("v2", "canary"));
		register(service, "b", Registration.at("10.0.0.2", 9100).weight(300));
		register(service, "v6", Registration.at("fd00::7", 9100).weight(200));
		register(service, "zero", Registration.at("10.0.0.3", 9100).weight(0));
		register(service, "drained", Registration.at("10.0.0.4", 9100).weight(100));
		register(service, "kept-busy", Registration.at("10.0.0.5", 9100).weight(200));
		register(service, "spare", Registration.at("10.0.0.6", 9100).weight(300));
		assertThat(post("/v1/services/%s/instances/drained/drain".formatted(service), "{\"durationSeconds\":0}"))
			.isEqualTo(202);
		assertThat(post("/v1/services/%s/instances/kept-busy/maintenance".formatted(service), "{\"reason\":\"disk\"}"))
			.isEqualTo(202);

		Api.Reply reply = api.get("/v1/prometheus/targets?service=" + service);

		assertThat(reply.status()).isEqualTo(200);
		assertThat(reply.contentType()).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
		assertThat(reply.header("X-Ballast-Stale")).isEmpty();
		assertThat(groups(reply.json())).containsExactly(
				group("10.0.0.1:9100", labels(service, "a", "SERVING", "100", "100", "az-1"),
						"__meta_ballast_metadata_team_name", "pay", "__meta_ballast_metadata_version", "2.4.1",
						"__meta_ballast_tags", ",v2,canary,"),
				group("10.0.0.2:9100", labels(service, "b", "SERVING", "300", "300", null)),
				group("10.0.0.6:9100", labels(service, "spare", "SERVING", "300", "300", null)),
				group("[fd00::7]:9100", labels(service, "v6", "SERVING", "200", "200", null)));
	}

	@Test
	void aDrainingInstanceIsListedWhileItsEffectiveWeightIsAboveZero() {
		String service = Names.service("prom");
		register(service, "a", Registration.at("10.0.1.1", 80).weight(1000));
		register(service, "b", Registration.at("10.0.1.2", 80).weight(1000));
		register(service, "c", Registration.at("10.0.1.3", 80).weight(1000));
		register(service, "d", Registration.at("10.0.1.4", 80).weight(1000));
		assertThat(post("/v1/services/%s/instances/d/drain".formatted(service), "{\"durationSeconds\":60}"))
			.isEqualTo(202);

		Map<String, String> d = groups(api.get("/v1/prometheus/targets?service=" + service).json()).stream()
			.filter(group -> group.labels().get("__meta_ballast_id").equals("d"))
			.findFirst()
			.orElseThrow()
			.labels();

		assertThat(d).containsEntry("__meta_ballast_mode", "DRAINING").containsEntry("__meta_ballast_weight", "1000");
		assertThat(Integer.parseInt(d.get("__meta_ballast_effective_weight"))).isBetween(1, 1000);
	}

	@Test
	void leavesOutAnInstanceOnceItsExpiredLeaseEjectedIt() {
		String service = Names.service("prom");
		for (String id : List.of("a", "b", "c", "d")) {
			register(service, id, Registration.at("10.0.2.1", 80).weight(100).leaseTtlSeconds(300));
		}
		// A tenth of the nominal weight: within the ejection cap (20%), so it is ejected.
		register(service, "silent", Registration.at("10.0.2.9", 80).weight(10).leaseTtlSeconds(5));
		assertThat(ids(service)).containsExactly("a", "b", "c", "d", "silent");

		// TTL 5 s, judged up to 2 s late, swept every 5 s; and in this shared test JVM, a
		// sweep right after a context switch extends leases by the time the context was
		// paused (10-25 s seen), as after any gap in watching.
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
			JsonNode silent = api.get("/v1/services/%s/instances/silent".formatted(service)).json();
			assertThat(silent.get("health").asString()).isEqualTo("CRITICAL");
			assertThat(silent.get("effectiveWeight").intValue()).isZero();
		});

		assertThat(ids(service)).containsExactly("a", "b", "c", "d");
	}

	@Test
	void filtersByOneOrSeveralServicesAndANamedServiceNotRegisteredAddsNothing() {
		String first = Names.service("prom");
		String second = Names.service("prom");
		String third = Names.service("prom");
		register(first, "x", Registration.at("10.0.3.1", 80).weight(1));
		register(second, "y", Registration.at("10.0.3.2", 80).weight(1));
		register(third, "z", Registration.at("10.0.3.3", 80).weight(1));

		JsonNode both = api
			.get("/v1/prometheus/targets?service=%s&service=%s&service=%s".formatted(second, first,
					Names.service("never")))
			.json();
		assertThat(groups(both)).extracting(group -> group.labels().get("__meta_ballast_id")).containsExactly("x", "y");
		assertThat(groups(api.get("/v1/prometheus/targets?service=" + Names.service("never")).json())).isEmpty();
		assertThat(groups(api.get("/v1/prometheus/targets").json()))
			.extracting(group -> group.labels().get("__meta_ballast_service"))
			.contains(first, second, third)
			.isSortedAccordingTo(String::compareTo);
	}

	@Test
	void aReaderTokenIsEnoughAndNoTokenIsRefused() {
		String service = Names.service("prom");
		register(service, "x", Registration.at("10.0.4.1", 80).weight(5));
		Api.Reply created = api.send("POST", "/v1/tokens", "{\"name\":\"prometheus\",\"role\":\"reader\"}", null);
		Api reader = api.as(created.json().get("token").asString());

		assertThat(groups(reader.get("/v1/prometheus/targets?service=" + service).json())).hasSize(1);
		assertThat(api.as(null).get("/v1/prometheus/targets?service=" + service).status()).isEqualTo(401);
	}

	@Test
	void aServiceParameterThatIsNoServiceNameIs400NamingItNeverAnError() {
		Api.Reply refused = api.get("/v1/prometheus/targets?service=Not_A_Name");
		assertThat(refused.status()).isEqualTo(400);
		assertThat(refused.json().get("errors").get(0).get("pointer").asString()).isEqualTo("#service");
		assertThat(refused.json().get("detail").asString()).contains("service must match").contains("Not_A_Name");

		qt(150).forAll(anyChars(70)).checkAssert(value -> {
			Api.Reply reply = api
				.get("/v1/prometheus/targets?service=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
			boolean name = value.matches("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
			assertThat(reply.status()).as("service=%s", value).isEqualTo(name ? 200 : 400);
		});
	}

	private void register(String service, String id, Registration registration) {
		assertThat(api.put("/v1/services/%s/instances/%s".formatted(service, id), registration).status())
			.isEqualTo(201);
	}

	private int post(String path, String body) {
		return api.send("POST", path, body, null).status();
	}

	private List<String> ids(String service) {
		return groups(api.get("/v1/prometheus/targets?service=" + service).json()).stream()
			.map(group -> group.labels().get("__meta_ballast_id"))
			.toList();
	}

	record Group(List<String> targets, Map<String, String> labels) {
	}

	private static List<Group> groups(JsonNode answer) {
		assertThat(answer.isArray()).as("the answer is a JSON array: %s", answer).isTrue();
		List<Group> groups = new ArrayList<>();
		for (JsonNode node : answer) {
			assertThat(node.propertyNames()).containsExactlyInAnyOrder("targets", "labels");
			List<String> targets = new ArrayList<>();
			node.get("targets").forEach(target -> targets.add(target.stringValue()));
			Map<String, String> labels = new TreeMap<>();
			node.get("labels").properties().forEach(entry -> {
				assertThat(entry.getValue().isString()).as("label %s is a string", entry.getKey()).isTrue();
				labels.put(entry.getKey(), entry.getValue().stringValue());
			});
			groups.add(new Group(targets, labels));
		}
		return groups;
	}

	private static Map<String, String> labels(String service, String id, String mode, String weight,
			String effectiveWeight, String zone) {
		Map<String, String> labels = new TreeMap<>(Map.of("__meta_ballast_service", service, "__meta_ballast_id", id,
				"__meta_ballast_mode", mode, "__meta_ballast_weight", weight, "__meta_ballast_effective_weight",
				effectiveWeight, "__meta_ballast_health", "PASSING"));
		// No tags: the separators alone, as Prometheus' Consul discovery writes them.
		labels.put("__meta_ballast_tags", ",,");
		if (zone != null) {
			labels.put("__meta_ballast_zone", zone);
		}
		return labels;
	}

	private static Group group(String target, Map<String, String> labels, String... more) {
		Map<String, String> all = new TreeMap<>(labels);
		for (int i = 0; i < more.length; i += 2) {
			all.put(more[i], more[i + 1]);
		}
		return new Group(List.of(target), all);
	}

}

package dev.ballast.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The audit log through HTTP, on the real PostgreSQL. */
@RegistryTest
class AuditLogTest {

	private static final Registration INSTANCE = Registration.at("10.0.0.1", 8080);

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Autowired
	AuditRetention retention;

	@Test
	void registrationReplacementAndDeregistrationAreOneEventEach() {
		Api.Reply token = Api.on(port)
			.send("POST", "/v1/tokens", "{\"name\":\"audit operator\",\"role\":\"operator\"}", null);
		Api api = Api.on(port).as(token.json().get("token").asString());
		String service = Names.service("audit-reg");
		String a = "/v1/services/%s/instances/a".formatted(service);

		assertThat(api.put(a, INSTANCE).status()).isEqualTo(201);
		List<JsonNode> events = events(api, "service=" + service);
		assertThat(events).hasSize(1);
		JsonNode created = events.getFirst();
		assertThat(created.get("action").asString()).isEqualTo("instance.create");
		assertThat(created.get("service").asString()).isEqualTo(service);
		assertThat(created.get("instance").asString()).isEqualTo("a");
		assertThat(created.get("before").isNull()).isTrue();
		assertThat(created.get("after").get("weight").asInt()).isEqualTo(100);
		assertThat(created.get("tokenId").asString()).isEqualTo(token.json().get("id").asString());
		assertThat(created.get("tokenName").asString()).isEqualTo("audit operator");
		assertThat(created.get("forced").asBoolean()).isFalse();
		assertThat(created.get("normalizations").isEmpty()).isTrue();

		assertThat(api.put(a, INSTANCE.weight(50)).status()).isEqualTo(200);
		JsonNode replaced = only(events(api, "service=" + service), "instance.replace");
		assertThat(replaced.get("before").get("weight").asInt()).isEqualTo(100);
		assertThat(replaced.get("after").get("weight").asInt()).isEqualTo(50);

		assertThat(api.delete(a).status()).isEqualTo(204);
		events = events(api, "service=" + service);
		assertThat(actions(events)).containsExactly("instance.deregister", "instance.replace", "instance.create");
		assertThat(events.getFirst().get("before").get("weight").asInt()).isEqualTo(50);
		assertThat(events.getFirst().get("after").isNull()).isTrue();
	}

	@Test
	void operatorEditsOfInstancesAndSettingsAreAuditedWithBeforeAndAfter() {
		Api api = Api.on(port);
		String service = Names.service("audit-edit");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, INSTANCE);
		String until = Instant.now().plus(Duration.ofHours(1)).toString();

		assertThat(api.patch(a, "{\"weight\":10,\"until\":\"%s\"}".formatted(until)).status()).isEqualTo(200);
		JsonNode edit = only(events(api, "service=" + service), "instance.edit");
		assertThat(edit.get("before").get("weight").asInt()).isEqualTo(100);
		assertThat(edit.get("after").get("weight").asInt()).isEqualTo(10);
		assertThat(Instant.parse(edit.get("details").get("until").asString())).isEqualTo(Instant.parse(until));

		assertThat(api.patch("/v1/services/" + service, "{\"maxUnroutablePercent\":40}").status()).isEqualTo(200);
		JsonNode settings = only(events(api, "service=" + service), "service.edit");
		assertThat(settings.get("instance").isNull()).isTrue();
		assertThat(settings.get("before").get("maxUnroutablePercent").asInt()).isEqualTo(25);
		assertThat(settings.get("after").get("maxUnroutablePercent").asInt()).isEqualTo(40);
		assertThat(events(api, "service=" + service)).hasSize(3);
	}

	@Test
	void theEndOfATimedWeightEditIsTheRegistrysOwnEvent() {
		Api api = Api.on(port);
		String service = Names.service("audit-revert");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, INSTANCE);
		String until = Instant.now().plus(Duration.ofSeconds(1)).toString();
		assertThat(api.patch(a, "{\"weight\":10,\"until\":\"%s\"}".formatted(until)).status()).isEqualTo(200);

		Awaitility.await()
			.atMost(Duration.ofSeconds(20))
			.until(() -> events(api, "service=" + service).getFirst().get("action").asString(),
					"instance.weight-revert"::equals);
		JsonNode reverted = events(api, "service=" + service).getFirst();
		assertThat(reverted.get("tokenId").asString()).isEqualTo("system");
		assertThat(reverted.get("before").get("weight").asInt()).isEqualTo(10);
		assertThat(reverted.get("after").get("weight").asInt()).isEqualTo(100);
	}

	@Test
	void aNormalizedWeightIsRecordedByItsPointer() {
		Api api = Api.on(port);
		String service = Names.service("audit-norm");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, INSTANCE);
		api.patch("/v1/services/" + service, "{\"weightPolicy\":\"NORMALIZE\"}");

		Api.Reply normalized = api.put(a, INSTANCE.member("weight", "\"70\""));
		assertThat(normalized.header("Ballast-Normalized")).contains("/weight");
		JsonNode event = events(api, "service=" + service).getFirst();
		assertThat(event.get("action").asString()).isEqualTo("instance.replace");
		assertThat(event.get("normalizations").valueStream().map(JsonNode::asString)).containsExactly("/weight");
		assertThat(event.get("after").get("weight").asInt()).isEqualTo(70);
	}

	@Test
	void drainsRecordTheForceAndARefusedDrainRecordsNothing() {
		Api api = Api.on(port);
		String service = registered(api, "audit-drain", 4);
		String drain = "/v1/services/%s/instances/%s/drain";

		assertThat(api.send("POST", drain.formatted(service, "i0"), "{\"durationSeconds\":60}", null).status())
			.isEqualTo(202);
		JsonNode first = events(api, "service=" + service).getFirst();
		assertThat(first.get("action").asString()).isEqualTo("instance.drain");
		assertThat(first.get("forced").asBoolean()).isFalse();
		assertThat(first.get("before").get("mode").asString()).isEqualTo("SERVING");
		assertThat(first.get("after").get("mode").asString()).isEqualTo("DRAINING");
		assertThat(first.get("details").get("durationSeconds").asInt()).isEqualTo(60);
		int before = events(api, "service=" + service).size();

		assertThat(api.send("POST", drain.formatted(service, "i1"), "{}", null).status()).isEqualTo(409);
		assertThat(events(api, "service=" + service)).hasSize(before);

		assertThat(api.send("POST", drain.formatted(service, "i1"), "{\"force\":true}", null).status()).isEqualTo(202);
		List<JsonNode> events = events(api, "service=" + service);
		assertThat(events).hasSize(before + 1);
		JsonNode forced = events.getFirst();
		assertThat(forced.get("instance").asString()).isEqualTo("i1");
		assertThat(forced.get("forced").asBoolean()).isTrue();
		assertThat(forced.get("details").get("guardOverridden").asBoolean()).isTrue();
	}

	@Test
	void aBatchDrainIsOneEventPerInstanceUnderOneRequestId() {
		Api api = Api.on(port);
		String service = registered(api, "audit-batch", 8);
		Api.Reply batch = api.sendWith("POST", "/v1/services/%s/drains".formatted(service),
				"{\"instances\":[\"i0\",\"i1\"],\"durationSeconds\":60}", Map.of("X-Request-Id", "batch-" + service));
		assertThat(batch.status()).isEqualTo(202);
		List<JsonNode> drains = events(api, "service=" + service).stream()
			.filter(event -> event.get("action").asString().equals("instance.drain"))
			.toList();
		assertThat(drains).extracting(event -> event.get("instance").asString()).containsExactlyInAnyOrder("i0", "i1");
		assertThat(drains).allSatisfy(event -> {
			assertThat(event.get("requestId").asString()).isEqualTo("batch-" + service);
			assertThat(event.get("after").get("mode").asString()).isEqualTo("DRAINING");
		});
	}

	@Test
	void maintenanceAndServeAreAuditedAndTheEndOfADrainIsTheRegistrysOwn() {
		Api api = Api.on(port);
		String service = registered(api, "audit-modes", 4);
		String path = "/v1/services/%s/instances/i0/".formatted(service);

		assertThat(api.send("POST", path + "maintenance", "{\"reason\":\"kernel\"}", null).status()).isEqualTo(202);
		JsonNode maintenance = events(api, "service=" + service).getFirst();
		assertThat(maintenance.get("action").asString()).isEqualTo("instance.maintenance");
		assertThat(maintenance.get("after").get("modeReason").asString()).isEqualTo("kernel");

		assertThat(api.send("POST", path + "serve", "{\"warmupSeconds\":0}", null).status()).isEqualTo(202);
		JsonNode serve = events(api, "service=" + service).getFirst();
		assertThat(serve.get("action").asString()).isEqualTo("instance.serve");
		assertThat(serve.get("before").get("mode").asString()).isEqualTo("MAINTENANCE");
		assertThat(serve.get("after").get("mode").asString()).isEqualTo("SERVING");

		assertThat(api.send("POST", path + "drain", "{\"durationSeconds\":1}", null).status()).isEqualTo(202);
		Awaitility.await()
			.atMost(Duration.ofSeconds(20))
			.until(() -> events(api, "service=" + service).getFirst().get("action").asString(),
					"instance.drained"::equals);
		JsonNode drained = events(api, "service=" + service).getFirst();
		assertThat(drained.get("tokenId").asString()).isEqualTo("system");
		assertThat(drained.get("after").get("mode").asString()).isEqualTo("DRAINED");
		assertThat(drained.get("requestId").isNull()).isTrue();
	}

	@Test
	void releaseStepsAreAuditedWithTheReleaseBeforeAndAfter() {
		Api api = Api.on(port);
		String service = Names.service("audit-release");
		for (String color : List.of("blue", "green")) {
			api.put("/v1/services/%s/instances/%s".formatted(service, color), INSTANCE.metadata("color", color));
		}
		Api.Reply started = api.send("POST", "/v1/services/%s/releases".formatted(service),
				"{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"green\"},\"steps\":[10,50,100]}", null);
		assertThat(started.status()).isEqualTo(201);
		long id = started.json().get("id").asLong();
		String release = "/v1/services/%s/releases/%d/".formatted(service, id);
		assertThat(api.send("POST", release + "advance", null, null).status()).isEqualTo(200);
		assertThat(api.send("POST", release + "abort", null, null).status()).isEqualTo(200);
		assertThat(api.send("POST", release + "abort", null, null).status()).isEqualTo(409);

		List<JsonNode> events = events(api, "service=" + service);
		assertThat(actions(events).subList(0, 3)).containsExactly("release.abort", "release.advance", "release.start");
		JsonNode start = events.get(2);
		assertThat(start.get("before").isNull()).isTrue();
		assertThat(start.get("after").get("percent").asInt()).isEqualTo(10);
		assertThat(start.get("details").get("release").asLong()).isEqualTo(id);
		assertThat(events.get(1).get("before").get("percent").asInt()).isEqualTo(10);
		assertThat(events.get(1).get("after").get("percent").asInt()).isEqualTo(50);
		assertThat(events.get(0).get("after").get("state").asString()).isEqualTo("ABORTED");
		assertThat(events).hasSize(5);
	}

	@Test
	void aRefusedRegistrationWritesNoEvent() {
		Api api = Api.on(port);
		String service = Names.service("audit-refused");
		String a = "/v1/services/%s/instances/a".formatted(service);
		assertThat(api.put(a, INSTANCE.member("weight", "\"0\"")).status()).isEqualTo(422);
		assertThat(events(api, "service=" + service)).isEmpty();
		api.put(a, INSTANCE);
		assertThat(api.patch(a, "{\"weight\":1.5}").status()).isEqualTo(422);
		assertThat(api.patch(a, "{\"weight\":5}", "\"999\"").status()).isEqualTo(412);
		assertThat(actions(events(api, "service=" + service))).containsExactly("instance.create");
	}

	@Test
	void filtersByServiceInstanceAndTimeNewestFirst() throws InterruptedException {
		Api api = Api.on(port);
		String service = Names.service("audit-filter");
		String other = Names.service("audit-other");
		api.put("/v1/services/%s/instances/a".formatted(service), INSTANCE);
		api.put("/v1/services/%s/instances/b".formatted(service), INSTANCE);
		api.put("/v1/services/%s/instances/a".formatted(other), INSTANCE);
		Thread.sleep(5);
		Instant since = Instant.now();
		Thread.sleep(5);
		api.patch("/v1/services/%s/instances/a".formatted(service), "{\"weight\":7}");

		List<JsonNode> all = events(api, "service=" + service);
		assertThat(all).extracting(event -> event.get("service").asString()).containsOnly(service);
		assertThat(all).extracting(event -> event.get("id").asLong()).isSortedAccordingTo((x, y) -> Long.compare(y, x));
		assertThat(actions(all)).containsExactly("instance.edit", "instance.create", "instance.create");

		List<JsonNode> a = events(api, "service=%s&instance=a".formatted(service));
		assertThat(a).extracting(event -> event.get("instance").asString()).containsExactly("a", "a");

		assertThat(actions(events(api, "service=%s&since=%s".formatted(service, since))))
			.containsExactly("instance.edit");
		assertThat(events(api, "instance=a&since=" + since)).extracting(event -> event.get("service").asString())
			.contains(service)
			.doesNotContain(other);
	}

	@Test
	void pagesFollowTheNextCursorUntilTheEnd() {
		Api api = Api.on(port);
		String service = Names.service("audit-pages");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, INSTANCE);
		for (int weight = 1; weight <= 4; weight++) {
			api.patch(a, "{\"weight\":%d}".formatted(weight));
		}
		List<Long> all = events(api, "service=" + service).stream().map(event -> event.get("id").asLong()).toList();
		assertThat(all).hasSize(5);

		List<Long> paged = new ArrayList<>();
		String next = "/v1/audit?service=%s&limit=2".formatted(service);
		int pages = 0;
		while (next != null) {
			Api.Reply page = api.get(next);
			assertThat(page.status()).isEqualTo(200);
			page.json().get("events").forEach(event -> paged.add(event.get("id").asLong()));
			JsonNode link = page.json().get("next");
			next = link == null ? null : link.asString();
			if (next != null) {
				assertThat(page.header("Link")).contains("<%s>; rel=\"next\"".formatted(next));
			}
			else {
				assertThat(page.header("Link")).isEmpty();
			}
			pages++;
			assertThat(pages).isLessThanOrEqualTo(3);
		}
		assertThat(pages).isEqualTo(3);
		assertThat(paged).isEqualTo(all);
	}

	@Test
	void refusesBadParametersWith400NamingThem() {
		Api api = Api.on(port);
		Map<String, String> bad = Map.of("limit=0", "#limit", "limit=1001", "#limit", "limit=ten", "#limit",
				"since=yesterday", "#since", "before=-3", "#before", "service=Not_A_Service", "#service",
				"instance=a%20b", "#instance");
		bad.forEach((query, pointer) -> {
			Api.Reply reply = api.get("/v1/audit?" + query);
			assertThat(reply.status()).as(query).isEqualTo(400);
			assertThat(reply.json().get("errors").get(0).get("pointer").asString()).as(query).isEqualTo(pointer);
		});
		assertThat(api.get("/v1/audit?limit=1000").status()).isEqualTo(200);
		assertThat(api.get("/v1/audit?limit=1").json().get("events")).hasSizeLessThanOrEqualTo(1);
	}

	@Test
	void echoesASaneRequestIdAndRecordsIt() {
		Api api = Api.on(port);
		String service = Names.service("audit-rid");
		Api.Reply given = api.sendWith("PUT", "/v1/services/%s/instances/a".formatted(service), INSTANCE.json(),
				Map.of("X-Request-Id", "deploy-42:step.1"));
		assertThat(given.header("X-Request-Id")).contains("deploy-42:step.1");
		assertThat(events(api, "service=" + service).getFirst().get("requestId").asString())
			.isEqualTo("deploy-42:step.1");

		Api.Reply replaced = api.sendWith("PUT", "/v1/services/%s/instances/b".formatted(service), INSTANCE.json(),
				Map.of("X-Request-Id", "not sane!"));
		String generated = replaced.header("X-Request-Id").orElseThrow();
		assertThat(generated).isNotEqualTo("not sane!").matches("[A-Za-z0-9._:-]{1,128}");
		assertThat(events(api, "service=%s&instance=b".formatted(service)).getFirst().get("requestId").asString())
			.isEqualTo(generated);

		assertThat(api.get("/v1/services/%s".formatted(service)).header("X-Request-Id")).isPresent();
		assertThat(api.get("/v1/services/no-such-service-at-all").header("X-Request-Id")).isPresent();
	}

	@Test
	void retentionDeletesOnlyEventsOlderThanItKeeps() {
		Api api = Api.on(port);
		String service = Names.service("audit-retention");
		api.put("/v1/services/%s/instances/a".formatted(service), INSTANCE);
		jdbc.sql("""
				INSERT INTO audit_event (at, token_id, token_name, action, service, instance)
				VALUES (now() - interval '91 days', 'old', 'old', 'instance.create', ?, 'old'),
				       (now() - interval '89 days', 'kept', 'kept', 'instance.create', ?, 'kept')""")
			.params(service, service)
			.update();

		assertThat(retention.prune()).isGreaterThanOrEqualTo(1);

		assertThat(events(api, "service=" + service)).extracting(event -> event.get("instance").asString())
			.containsExactly("kept", "a");
	}

	@Test
	void theTableRefusesUpdateDeleteAndTruncate() {
		Api api = Api.on(port);
		String service = Names.service("audit-append");
		api.put("/v1/services/%s/instances/a".formatted(service), INSTANCE);

		assertThatThrownBy(
				() -> jdbc.sql("UPDATE audit_event SET token_id = 'someone' WHERE service = ?").param(service).update())
			.isInstanceOf(DataAccessException.class)
			.rootCause()
			.hasMessageContaining("append-only");
		assertThatThrownBy(() -> jdbc.sql("DELETE FROM audit_event WHERE service = ?").param(service).update())
			.isInstanceOf(DataAccessException.class)
			.rootCause()
			.hasMessageContaining("append-only");
		assertThatThrownBy(() -> jdbc.sql("TRUNCATE audit_event").update()).isInstanceOf(DataAccessException.class)
			.rootCause()
			.hasMessageContaining("append-only");
		assertThat(events(api, "service=" + service).getFirst().get("tokenName").asString())
			.isEqualTo("bootstrap admin");
	}

	private static List<JsonNode> events(Api api, String query) {
		Api.Reply reply = api.get("/v1/audit?limit=1000&" + query);
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		List<JsonNode> events = new ArrayList<>();
		reply.json().get("events").forEach(events::add);
		return events;
	}

	private static List<String> actions(List<JsonNode> events) {
		return events.stream().map(event -> event.get("action").asString()).toList();
	}

	private static JsonNode only(List<JsonNode> events, String action) {
		List<JsonNode> matching = events.stream()
			.filter(event -> event.get("action").asString().equals(action))
			.toList();
		assertThat(matching).as(action).hasSize(1);
		return matching.getFirst();
	}

	private static String registered(Api api, String prefix, int count) {
		String service = Names.service(prefix);
		for (int i = 0; i < count; i++) {
			assertThat(api.put("/v1/services/%s/instances/i%d".formatted(service, i), INSTANCE).status()).isIn(200,
					201);
		}
		return service;
	}

}

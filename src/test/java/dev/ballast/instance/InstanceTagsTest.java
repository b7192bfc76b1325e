package dev.ballast.instance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tags through Ballast's own API against real PostgreSQL: kept in order, refused naming
 * the tag with nothing written, a change like any other (revision, watch event, audit),
 * and never a weight.
 */
@RegistryTest
class InstanceTagsTest {

	static final Duration SOON = Duration.ofSeconds(5);

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	Api api;

	String service;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
		service = Names.service("tags");
	}

	String path(String id) {
		return "/v1/services/%s/instances/%s".formatted(service, id);
	}

	static List<String> tags(JsonNode instance) {
		List<String> tags = new ArrayList<>();
		instance.get("tags").forEach(tag -> tags.add(tag.asString()));
		return tags;
	}

	@Test
	void registersTagsInTheirOrderOnceEachAndReadsThemBack() {
		Api.Reply created = api.put(path("a"),
				Registration.at("10.0.0.1", 80).tags("v2", "traefik.http.routers.a.rule=Host(`a.example`)", "v2"));

		assertThat(created.status()).as(created.body()).isEqualTo(201);
		assertThat(tags(created.json())).containsExactly("v2", "traefik.http.routers.a.rule=Host(`a.example`)");
		assertThat(tags(api.get(path("a")).json())).containsExactly("v2",
				"traefik.http.routers.a.rule=Host(`a.example`)");
		assertThat(tags(api.get("/v1/services/%s/instances".formatted(service)).json().get("instances").get(0)))
			.containsExactly("v2", "traefik.http.routers.a.rule=Host(`a.example`)");
	}

	@Test
	void anInstanceWithoutTagsHasAnEmptyList() {
		JsonNode created = api.put(path("a"), Registration.at("10.0.0.1", 80)).json();

		assertThat(created.get("tags").isArray()).isTrue();
		assertThat(created.get("tags").isEmpty()).isTrue();
	}

	@Test
	void aTagLikeWeight0IsOnlyTextAndLeavesTheWeightAlone() {
		JsonNode created = api.put(path("a"), Registration.at("10.0.0.1", 80).weight(70).tags("weight=0", "0")).json();

		assertThat(created.get("weight").intValue()).isEqualTo(70);
		assertThat(created.get("effectiveWeight").intValue()).isEqualTo(70);
		assertThat(created.get("routable").booleanValue()).isTrue();
		assertThat(tags(created)).containsExactly("weight=0", "0");
	}

	@Test
	void refusesBadTagsWith422NamingEachAndWritesNothing() {
		List<String> tooMany = new ArrayList<>();
		for (int i = 0; i < 33; i++) {
			tooMany.add("\"t" + i + "\"");
		}
		record Refused(String tags, String pointer, String detail) {
		}
		for (Refused refused : List.of(new Refused("[\"ok\",\"\"]", "/tags/1", "1 to 128 characters; got 0"),
				new Refused("[\"a\",\"b\",\"c\",\"" + "x".repeat(129) + "\"]", "/tags/3", "got 129"),
				new Refused("[\"line\\nbreak\"]", "/tags/0", "U+000A"),
				new Refused("[\"nul\\u0000\"]", "/tags/0", "U+0000"),
				new Refused("[\"ok\",5]", "/tags/1", "got the number 5"),
				new Refused("[\"ok\",null]", "/tags/1", "null"), new Refused("\"v1\"", "/tags", "string"),
				new Refused("[" + String.join(",", tooMany) + "]", "/tags", "at most 32 tags; got 33"))) {
			Api.Reply reply = api.put(path("a"), Registration.at("h", 1).member("tags", refused.tags()));

			assertThat(reply.status()).as(refused.tags() + " → " + reply.body()).isEqualTo(422);
			assertThat(reply.json().get("errors").valueStream()).as(reply.body()).anySatisfy(error -> {
				assertThat(error.get("pointer").asString()).isEqualTo(refused.pointer());
				assertThat(error.get("detail").asString()).contains(refused.detail());
			});
			assertThat(api.get("/v1/services/" + service).status()).as("nothing written").isEqualTo(404);
		}
	}

	@Test
	void aRegistrationThatChangesOnlyTagsIsAChangeWithAnEventAndAnAuditEntry() {
		Registration body = Registration.at("10.0.0.1", 80).weight(10);
		api.put(path("a"), body.tags("v1"));

		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			assertThat(stream.nextEvent(SOON).name()).isEqualTo("snapshot");

			Api.Reply again = api.put(path("a"), body.tags("v1"));
			assertThat(again.json().get("revision").longValue()).as("the same tags: a renewal").isEqualTo(1);
			Api.Reply retagged = api.put(path("a"), body.tags("v2", "v1"));

			assertThat(retagged.status()).isEqualTo(200);
			assertThat(retagged.json().get("revision").longValue()).isEqualTo(2);
			EventStream.Event upsert = stream.nextEvent(SOON);
			assertThat(upsert.name()).isEqualTo("upsert");
			assertThat(upsert.id()).isEqualTo("2");
			assertThat(tags(upsert.json())).containsExactly("v2", "v1");

			Api.Reply reordered = api.put(path("a"), body.tags("v1", "v2"));
			assertThat(reordered.json().get("revision").longValue()).as("order is part of the tags").isEqualTo(3);
		}
		JsonNode replaced = api.get("/v1/audit?limit=10&service=" + service).json().get("events").get(1);
		assertThat(replaced.get("action").asString()).isEqualTo("instance.replace");
		assertThat(tags(replaced.get("before"))).containsExactly("v1");
		assertThat(tags(replaced.get("after"))).containsExactly("v2", "v1");
		assertThat(jdbc.sql("SELECT count(*) FROM change_log WHERE service = ?")
			.param(service)
			.query(Integer.class)
			.single()).isEqualTo(3);
	}

	@Test
	void anOperatorEditReplacesOrRemovesTheTags() {
		api.put(path("a"), Registration.at("10.0.0.1", 80).tags("v1", "blue"));

		JsonNode edited = api.patch(path("a"), "{\"tags\":[\"green\"]}").json();
		assertThat(tags(edited)).containsExactly("green");
		assertThat(edited.get("revision").longValue()).isEqualTo(2);

		Api.Reply refused = api.patch(path("a"), "{\"tags\":[\"ok\",\"\\u0007\"]}");
		assertThat(refused.status()).isEqualTo(422);
		assertThat(refused.json().get("errors").get(0).get("pointer").asString()).isEqualTo("/tags/1");

		JsonNode removed = api.patch(path("a"), "{\"tags\":null}").json();
		assertThat(removed.get("tags").isEmpty()).isTrue();
		assertThat(removed.get("revision").longValue()).isEqualTo(3);
	}

	@Test
	void theListFiltersByTagsAllOfWhichMustMatchWithoutCase() {
		api.put(path("a"),
				Registration.at("10.0.0.1", 80).tags("v2", "Blue", "traefik.http.routers.a.rule=Host(`a`,`b`)"));
		api.put(path("b"), Registration.at("10.0.0.2", 80).tags("v2"));
		api.put(path("c"), Registration.at("10.0.0.3", 80));
		String list = "/v1/services/%s/instances".formatted(service);

		assertThat(ids(api.get(list))).containsExactly("a", "b", "c");
		assertThat(ids(api.get(list + "?tag=v2"))).containsExactly("a", "b");
		assertThat(ids(api.get(list + "?tag=V2&tag=blue"))).containsExactly("a");
		assertThat(ids(api.get(list + "?tag="
				+ java.net.URLEncoder.encode("traefik.http.routers.a.rule=Host(`a`,`b`)",
						java.nio.charset.StandardCharsets.UTF_8))))
			.as("a tag with a comma is one tag")
			.containsExactly("a");
		Api.Reply none = api.get(list + "?tag=v3");
		assertThat(ids(none)).isEmpty();
		assertThat(none.json().get("revision").longValue()).as("the service's revision all the same").isEqualTo(3);
		assertThat(none.header("X-Ballast-Index")).hasValue("3");
	}

	static List<String> ids(Api.Reply reply) {
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		List<String> ids = new ArrayList<>();
		reply.json().get("instances").forEach(instance -> ids.add(instance.get("id").asString()));
		return ids;
	}

}

package dev.ballast;

import java.net.Socket;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.CleanWrites;
import dev.ballast.support.Names;
import dev.ballast.support.OtherNode;
import dev.ballast.support.ServerLog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import org.springframework.jdbc.core.simple.JdbcClient;

import static dev.ballast.support.Properties.anyChars;
import static dev.ballast.support.Properties.charsBetween;
import static dev.ballast.support.Properties.charsOf;
import static dev.ballast.support.Properties.hostileNumbers;
import static dev.ballast.support.Properties.hostileText;
import static dev.ballast.support.Properties.hostileTimestamps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.maps;

/**
 * Random and mutated bodies, headers and path segments sent to every write endpoint of a
 * running registry: the answer is never a 5xx and never late, and a refused request (4xx)
 * leaves the database exactly as it was. Each service under test starts quiet (no ramp,
 * no lease about to expire, a manual release), so between the two snapshots of a refused
 * request nothing else may write to it; after an accepted request it is replaced, since
 * what that request started (a drain, an absorbed heartbeat) may write later.
 */
class WriteEndpointsFuzzTest {

	private static final Duration HANG = Duration.ofSeconds(10);

	/**
	 * Well within the subscriber TTL (60 s), after which the fixture's subscriber row
	 * would be dropped.
	 */
	private static final Duration FIXTURE_LIFE = Duration.ofSeconds(20);

	private static final String REGISTRATION = "{\"address\":\"10.0.0.9\",\"port\":8080,\"weight\":100,"
			+ "\"zone\":\"az-1\",\"metadata\":{\"color\":\"%s\"},\"leaseTtlSeconds\":300}";

	/** The rows of {@link #snapshot} that are the fixture's service's own. */
	private static final int FIXTURE_ROWS = 9;

	private static OtherNode node;

	private static Api api;

	private static JdbcClient jdbc;

	private static Instant started;

	/**
	 * Each shrink step is a real request and two snapshots: a bounded search still
	 * reports a much smaller attempt than the first.
	 */
	private static final int SHRINK_CYCLES = 200;

	private static final Map<Boolean, Fixture> clean = new LinkedHashMap<>();

	@BeforeAll
	static void startNode() {
		// This node's timers stay off: a lease sweep or a probe's verdict between two
		// snapshots is not the request's doing.
		node = OtherNode.start("ballast.lease.scheduled=false", "ballast.checks.scheduled=false");
		api = Api.on(node.port());
		jdbc = node.bean(JdbcClient.class);
		started = jdbc.sql("SELECT now()").query(java.sql.Timestamp.class).single().toInstant();
	}

	@AfterAll
	static void stopNode() {
		node.close();
	}

	@Test
	void mutatedBodiesAreRefusedWithoutWriting() {
		fuzz(200).forAll(mutatedBodies()).checkAssert(WriteEndpointsFuzzTest::check);
	}

	@Test
	void mutatedHeadersAreRefusedWithoutWriting() {
		fuzz(150).forAll(mutatedHeaders()).checkAssert(WriteEndpointsFuzzTest::check);
	}

	@Test
	void mutatedPathsAreRefusedWithoutWriting() {
		fuzz(150).forAll(mutatedPaths()).checkAssert(WriteEndpointsFuzzTest::check);
	}

	/**
	 * NUL, lone surrogates, control characters, timestamps beyond every range and numbers
	 * at every integer edge, each put into one string, timestamp or number field of one
	 * endpoint's body (inside its objects and arrays too); one case in three is sent at
	 * the same moment as clean registrations into other services, which share its commit
	 * group. Never a 5xx, a refusal writes nothing, every clean write succeeds, and the
	 * server logs no ERROR.
	 */
	@Test
	void hostileValuesInEveryFieldFailAloneBesideCleanWrites() {
		try (ServerLog log = ServerLog.open()) {
			fuzz(150).forAll(hostileBodies(), integers().between(0, 2)).checkAssert((attempt, share) -> {
				if (share == 0) {
					checkBesideCleanWrites(attempt);
				}
				else {
					check(attempt);
				}
			});
			assertThat(log.errors()).as("ERROR lines the server logged during the fuzz run").isEmpty();
		}
	}

	/**
	 * The bodies the fuzz mutates must themselves be accepted, checks and all: else every
	 * mutation would be refused for the same reason and the fuzz would prove nothing.
	 */
	@Test
	void theBodiesTheFuzzMutatesAreAccepted() {
		for (Endpoint endpoint : List.of(Endpoint.REGISTER, Endpoint.EDIT_INSTANCE, Endpoint.DRAIN,
				Endpoint.MAINTENANCE)) {
			Fixture fixture = Fixture.create(false);
			Attempt attempt = new Attempt(endpoint, null, null, endpoint.body.text(),
					Map.of("Content-Type", "application/json"));
			HttpResponse<String> response = api.raw(endpoint.method, attempt.path(fixture), attempt.body(),
					attempt.headers(), HANG);
			assertThat(response.statusCode()).as("%s: %s", endpoint, response.body()).isBetween(200, 299);
		}
	}

	private static QuickTheory fuzz(int tries) {
		return dev.ballast.support.Properties.qt(tries).withShrinkCycles(SHRINK_CYCLES);
	}

	/** Found by the fuzzer: a wildcard Content-Type made Spring's body reading throw. */
	@Test
	void aWildcardContentTypeIsRefusedWith415() {
		Fixture fixture = Fixture.create(false);
		for (String type : List.of("*/*", "application/*", "*/*; charset=UTF-8")) {
			HttpResponse<String> response = api.raw("PUT", "/v1/services/%s/instances/a".formatted(fixture.service),
					Endpoint.REGISTER.body.text(), Map.of("Content-Type", type), HANG);
			assertThat(response.statusCode()).as(type).isEqualTo(415);
			assertThat(response.body()).as(type).contains("Content-Type");
		}
	}

	/**
	 * Found by the fuzzer: a Content-Type with unbalanced quotes made Spring's media type
	 * parser throw an index error, answered 500.
	 */
	@Test
	void anUnreadableContentTypeIsRefusedWith415() {
		Fixture fixture = Fixture.create(false);
		String unreadable = "'\"\"*!)?M#!!!)\"#!\"!$3$'!(9%!\"D(!$()/&";
		for (String method : List.of("PUT", "DELETE")) {
			List<String> before = snapshot(fixture);
			HttpResponse<String> response = api.raw(method, "/v1/services/%s/instances/a".formatted(fixture.service),
					method.equals("PUT") ? Endpoint.REGISTER.body.text() : null, Map.of("Content-Type", unreadable),
					HANG);
			assertThat(response.statusCode()).as(method).isEqualTo(415);
			assertThat(response.body()).as(method).contains("Content-Type header cannot be read");
			assertThat(snapshot(fixture)).as(method).isEqualTo(before);
		}
	}

	/**
	 * Found by the fuzzer: an Accept header with an unbalanced quote made Spring's media
	 * type parser throw an index error while it picked the handler for the write's 406,
	 * answered 500. Refused with 406 on a write and a read alike, nothing written.
	 */
	@Test
	void anUnreadableAcceptIsRefusedWith406() {
		Fixture fixture = Fixture.create(false);
		String unreadable = "\"!!G!)%%s/-";
		String instance = "/v1/services/%s/instances/a".formatted(fixture.service);
		for (String method : List.of("PATCH", "GET")) {
			List<String> before = snapshot(fixture);
			HttpResponse<String> response = api.raw(method,
					method.equals("GET") ? instance : "/v1/services/" + fixture.service,
					method.equals("PATCH") ? "{\"defaultWeight\":50}" : null,
					Map.of("Accept", unreadable, "Content-Type", "application/json"), HANG);
			assertThat(response.statusCode()).as(method).isEqualTo(406);
			assertThat(response.body()).as(method).contains("Accept header cannot be read");
			assertThat(snapshot(fixture)).as(method).isEqualTo(before);
		}
	}

	/**
	 * Malformed percent escapes, which the JDK client will not send: refused by the
	 * server with 400, nothing written.
	 */
	@Test
	void malformedPercentEscapesAreRefused() throws Exception {
		Fixture fixture = Fixture.create(false);
		for (String path : List.of("/v1/services/%s/instances/%%ZZ", "/v1/services/%s/instances/a%%",
				"/v1/services/%s/instances/%%e2%%8", "/v1/services/%%%s/instances/a")) {
			List<String> before = snapshot(fixture);
			String body = Endpoint.REGISTER.body.text();
			String status;
			try (Socket socket = new Socket("127.0.0.1", node.port())) {
				socket.setSoTimeout((int) HANG.toMillis());
				socket.getOutputStream()
					.write(("PUT " + path.formatted(fixture.service) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
							+ "Authorization: " + Admin.HEADER
							+ "\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
							+ "\r\nConnection: close\r\n\r\n" + body)
						.getBytes(StandardCharsets.US_ASCII));
				status = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
			}
			assertThat(status).as(path)
				.startsWith("HTTP/1.1 4")
				.containsIgnoringCase("Content-Type: application/problem+json")
				.contains("\"type\":\"https://ballast.dev/problems/");
			assertThat(snapshot(fixture)).as(path).isEqualTo(before);
		}
	}

	/**
	 * Found by the fuzzer: Spring chose the answer's media type after the handler ran, so
	 * the edit was committed and then answered 406.
	 */
	@Test
	void aWriteWhoseAnswerTheClientWouldNotAcceptIsNotMade() {
		Fixture fixture = Fixture.create(false);
		for (String accept : List.of("text/html", "application/xml, text/event-stream", "*/*;q=abc")) {
			List<String> before = snapshot(fixture);
			HttpResponse<String> response = api.raw("PATCH", "/v1/services/" + fixture.service,
					"{\"defaultWeight\":50}", Map.of("Content-Type", "application/json", "Accept", accept), HANG);
			assertThat(response.statusCode()).as(accept).isEqualTo(406);
			assertThat(snapshot(fixture)).as(accept).isEqualTo(before);
		}
		assertThat(api
			.raw("PATCH", "/v1/services/" + fixture.service, "{\"defaultWeight\":50}",
					Map.of("Content-Type", "application/json", "Accept", "application/json;q=0.5, text/html"), HANG)
			.statusCode()).isEqualTo(200);
	}

	private static void check(Attempt attempt) {
		Fixture fixture = clean.get(attempt.endpoint().release);
		if (fixture == null || fixture.created.isBefore(Instant.now().minus(FIXTURE_LIFE))) {
			fixture = Fixture.create(attempt.endpoint().release);
			clean.put(attempt.endpoint().release, fixture);
		}
		String path = attempt.path(fixture);
		List<String> before = snapshot(fixture);
		HttpResponse<String> response = api.raw(attempt.endpoint().method, path, attempt.body(), attempt.headers(),
				HANG);
		int status = response.statusCode();
		assertThat(status).as("%s %s answered %d: %s", attempt.endpoint().method, path, status, response.body())
			.isBetween(200, 499)
			.isNotIn(300, 301, 302, 303, 304, 307, 308);
		if (status >= 400) {
			assertThat(response.headers().firstValue("Content-Type").orElse(""))
				.as("%s %s answered %d: %s", attempt.endpoint().method, path, status, response.body())
				.startsWith("application/problem+json");
			assertThat(response.body()).as("%s %s answered %d", attempt.endpoint().method, path, status)
				.contains("\"type\":\"https://ballast.dev/problems/")
				.doesNotContain("about:blank");
			List<String> after = snapshot(fixture);
			List<String> changed = new ArrayList<>();
			for (int i = 0; i < before.size(); i++) {
				if (!before.get(i).equals(after.get(i))) {
					changed.add("before " + before.get(i) + "\n after " + after.get(i));
				}
			}
			assertThat(changed)
				.as("%s %s was refused with %d but changed the database", attempt.endpoint().method, path, status)
				.isEmpty();
		}
		else {
			clean.remove(attempt.endpoint().release);
		}
	}

	/**
	 * {@link #check}, with the request sent beside clean registrations into services of
	 * their own: the services and instances they create are left out of the comparison.
	 */
	private static void checkBesideCleanWrites(Attempt attempt) {
		Fixture fixture = Fixture.create(attempt.endpoint().release);
		String path = attempt.path(fixture);
		List<String> before = snapshot(fixture).subList(0, FIXTURE_ROWS);
		HttpResponse<String> response = CleanWrites.beside(api,
				() -> api.raw(attempt.endpoint().method, path, attempt.body(), attempt.headers(), HANG));
		int status = response.statusCode();
		assertThat(status).as("%s %s answered %d: %s", attempt.endpoint().method, path, status, response.body())
			.isBetween(200, 499);
		if (status >= 400) {
			assertThat(snapshot(fixture).subList(0, FIXTURE_ROWS))
				.as("%s %s was refused with %d but changed the database", attempt.endpoint().method, path, status)
				.isEqualTo(before);
		}
	}

	/**
	 * Everything kept about the fixture's service, and every service and instance created
	 * since the test started (a refused request to another path must not create one).
	 * Kept answers to {@code Idempotency-Key}s are left out: refusals are kept and
	 * replayed by design.
	 */
	private static List<String> snapshot(Fixture fixture) {
		List<String> rows = new ArrayList<>();
		for (String table : List.of("service", "instance", "change_log", "subscriber", "mode_schedule",
				"weight_override", "release", "audit_event", "health_check")) {
			String column = table.equals("service") ? "name" : "service";
			rows.add(table + ": "
					+ jdbc
						.sql("SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY to_jsonb(t)::text)::text, '')" + " FROM "
								+ table + " t WHERE " + column + " = ?")
						.param(fixture.service)
						.query(String.class)
						.single());
		}
		rows.add("new services: " + jdbc
			.sql("SELECT coalesce(string_agg(name, ',' ORDER BY name), '') FROM service WHERE created_at >= ?")
			.param(java.sql.Timestamp.from(started))
			.query(String.class)
			.single());
		rows.add("new instances: " + jdbc
			.sql("SELECT coalesce(string_agg(service || '/' || id, ',' ORDER BY service, id), '') FROM instance"
					+ " WHERE registered_at >= ?")
			.param(java.sql.Timestamp.from(started))
			.query(String.class)
			.single());
		return rows;
	}

	private static Gen<Attempt> mutatedBodies() {
		return Generate.enumValues(Endpoint.class)
			.flatMap(endpoint -> Bodies.mutated(endpoint.body)
				.map(body -> new Attempt(endpoint, null, null, body, Map.of("Content-Type", "application/json"))));
	}

	private static Gen<Attempt> hostileBodies() {
		List<Endpoint> withBodies = java.util.Arrays.stream(Endpoint.values())
			.filter(endpoint -> endpoint.body != null)
			.toList();
		return Generate.pick(withBodies)
			.flatMap(endpoint -> integers().between(0, endpoint.body.members().size() - 1)
				.flatMap(at -> Hostile.into(endpoint.body.members().get(at).getValue())
					.map(value -> new Attempt(endpoint, null, null, endpoint.body.with(at, value).text(),
							Map.of("Content-Type", "application/json")))));
	}

	private static Gen<Attempt> mutatedHeaders() {
		return Generate.enumValues(Endpoint.class)
			.flatMap(endpoint -> Headers.mutated()
				.map(headers -> new Attempt(endpoint, null, null, endpoint.body == null ? null : endpoint.body.text(),
						headers)));
	}

	private static Gen<Attempt> mutatedPaths() {
		Gen<String> segment = Segments.junk();
		return Generate.enumValues(Endpoint.class)
			.zip(orNull(segment, 40), orNull(segment, 40),
					(endpoint, service, second) -> new Attempt(endpoint, service, second,
							endpoint.body == null ? null : endpoint.body.text(),
							Map.of("Content-Type", "application/json")));
	}

	/** Values of {@code gen}, and null {@code percent} times in a hundred. */
	private static <T> Gen<T> orNull(Gen<T> gen, int percent) {
		return gen.toOptionals(percent).map(value -> value.orElse(null));
	}

	/** Strings of ASCII letters. */
	private static Gen<String> alpha(int minLength, int maxLength) {
		return charsOf("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", minLength, maxLength);
	}

	/**
	 * One request to send.
	 *
	 * @param service the service segment, or null for the fixture's service
	 * @param second the instance, release or subscriber segment, or null for the
	 * fixture's
	 * @param body the raw body, or null for none
	 */
	record Attempt(Endpoint endpoint, String service, String second, String body, Map<String, String> headers) {

		String path(Fixture fixture) {
			String defaultSecond = switch (endpoint.second) {
				case INSTANCE -> "a";
				case RELEASE -> Long.toString(fixture.release);
				case SUBSCRIBER -> "lb-1";
				case NONE -> "";
			};
			return endpoint.template.replace("{service}", service == null ? fixture.service : service)
				.replace("{second}", second == null ? defaultSecond : second);
		}

		@Override
		public String toString() {
			String shown = body == null ? "null" : body.length() > 300 ? body.substring(0, 300) + "…" : body;
			String where = (service == null ? "" : " service=" + abbreviated(service))
					+ (second == null ? "" : " second=" + abbreviated(second));
			return endpoint + where + " headers=" + headers + " body=" + shown;
		}

		private static String abbreviated(String text) {
			return text.length() > 80 ? text.substring(0, 80) + "…(" + text.length() + ")" : text;
		}

	}

	/**
	 * A quiet service to send requests to: four instances, a subscriber, maybe a release.
	 */
	record Fixture(String service, long release, Instant created) {

		static Fixture create(boolean withRelease) {
			String service = Names.service("fuzz");
			for (String id : List.of("a", "b", "c", "d")) {
				String color = id.equals("a") || id.equals("b") ? "blue" : "green";
				assertThat(api.put("/v1/services/%s/instances/%s".formatted(service, id), REGISTRATION.formatted(color))
					.status()).isEqualTo(201);
			}
			// As a poller with ?subscriber=lb-1 would leave it, without waiting for the
			// periodic flush that writes such rows.
			jdbc.sql(
					"""
							INSERT INTO subscriber (service, name, delivered_revision, acked_revision, first_seen_at, last_seen_at)
							VALUES (?, 'lb-1', 4, 0, now(), now())""")
				.param(service)
				.update();
			long release = 0;
			if (withRelease) {
				Api.Reply started = api.send("POST", "/v1/services/%s/releases".formatted(service),
						Endpoint.START_RELEASE.body.text(), null);
				assertThat(started.status()).isEqualTo(201);
				release = started.json().get("id").asLong();
			}
			return new Fixture(service, release, Instant.now());
		}

	}

	enum Second {

		NONE, INSTANCE, RELEASE, SUBSCRIBER

	}

	/** Every write endpoint, with a body it would accept. */
	enum Endpoint {

		REGISTER("PUT", "/instances/{second}", Second.INSTANCE, false,
				Body.of("address", "\"10.0.0.7\"", "port", "8081", "weight", "50", "zone", "\"az-2\"", "metadata",
						"{\"color\":\"green\",\"v\":\"2\"}", "tags", "[\"v2\",\"traefik.enable=true\"]",
						"leaseTtlSeconds", "300", "checks",
						"[{\"http\":\"http://10.0.0.7:8081/health?deep=1\",\"method\":\"GET\",\"headers\":"
								+ "{\"X-Probe\":[\"a\",\"b\"]},\"tlsSkipVerify\":false,\"intervalSeconds\":10,"
								+ "\"timeoutMillis\":2000,\"failuresBeforeCritical\":2,\"successBeforePassing\":1,"
								+ "\"deregisterAfterSeconds\":120},{\"tcp\":\"10.0.0.7:8081\",\"intervalSeconds\":5},"
								+ "{\"grpc\":\"10.0.0.7:8081/shop.Cart\",\"intervalSeconds\":5}]")),
		DEREGISTER("DELETE", "/instances/{second}", Second.INSTANCE, false, null),
		HEARTBEAT("POST", "/instances/{second}/heartbeat", Second.INSTANCE, false, null),
		EDIT_SERVICE("PATCH", "", Second.NONE, false,
				Body.of("weightPolicy", "\"NORMALIZE\"", "defaultWeight", "50", "leaseTtlSeconds", "60",
						"maxUnroutablePercent", "50", "maxEjectionPercent", "30")),
		DELETE_SERVICE("DELETE", "", Second.NONE, false, null),
		EDIT_INSTANCE("PATCH", "/instances/{second}", Second.INSTANCE, false,
				Body.of("weight", "50", "zone", "\"az-2\"", "metadata", "{\"color\":\"green\",\"v\":null}", "tags",
						"[\"v3\"]", "until", "\"2030-01-01T00:00:00Z\"")),
		DRAIN("POST", "/instances/{second}/drain", Second.INSTANCE, false,
				Body.of("durationSeconds", "30", "force", "false")),
		SERVE("POST", "/instances/{second}/serve", Second.INSTANCE, false, Body.of("warmupSeconds", "0")),
		MAINTENANCE("POST", "/instances/{second}/maintenance", Second.INSTANCE, false,
				Body.of("reason", "\"kernel upgrade\"", "until", "\"2030-01-01T00:00:00Z\"", "force", "false")),
		BATCH_DRAIN("POST", "/drains", Second.NONE, false,
				Body.of("instances", "[\"a\",\"c\"]", "durationSeconds", "30", "force", "true")),
		START_RELEASE("POST", "/releases", Second.NONE, false,
				Body.of("from", "{\"color\":\"blue\"}", "to", "{\"color\":\"green\"}", "steps", "[10,50,100]",
						"stepIntervalSeconds", "0")),
		ADVANCE("POST", "/releases/{second}/advance", Second.RELEASE, true, null),
		PROMOTE("POST", "/releases/{second}/promote", Second.RELEASE, true, null),
		ABORT("POST", "/releases/{second}/abort", Second.RELEASE, true, null),
		ACK("POST", "/subscribers/{second}/ack", Second.SUBSCRIBER, false, Body.of("revision", "1"));

		final String method;

		final String template;

		final Second second;

		final boolean release;

		final Body body;

		Endpoint(String method, String suffix, Second second, boolean release, Body body) {
			this.method = method;
			this.template = "/v1/services/{service}" + suffix;
			this.second = second;
			this.release = release;
			this.body = body;
		}

	}

	/**
	 * A JSON object as raw members, so that keys may repeat and values may be anything.
	 */
	record Body(List<Map.Entry<String, String>> members) {

		static Body of(String... keysAndValues) {
			List<Map.Entry<String, String>> members = new ArrayList<>();
			for (int i = 0; i < keysAndValues.length; i += 2) {
				members.add(Map.entry(keysAndValues[i], keysAndValues[i + 1]));
			}
			return new Body(members);
		}

		String text() {
			return members.stream()
				.map(member -> Json.string(member.getKey()) + ":" + member.getValue())
				.collect(Collectors.joining(",", "{", "}"));
		}

		Body with(int index, String value) {
			List<Map.Entry<String, String>> changed = new ArrayList<>(members);
			changed.set(index, Map.entry(members.get(index).getKey(), value));
			return new Body(changed);
		}

		Body without(int index) {
			List<Map.Entry<String, String>> changed = new ArrayList<>(members);
			changed.remove(index);
			return new Body(changed);
		}

		Body plus(String key, String value) {
			List<Map.Entry<String, String>> changed = new ArrayList<>(members);
			changed.add(Map.entry(key, value));
			return new Body(changed);
		}

	}

	/**
	 * Mutations of a body the endpoint would accept, and bodies that are no JSON at all.
	 */
	static final class Bodies {

		static Gen<String> mutated(Body base) {
			Body body = base == null ? Body.of() : base;
			int size = body.members().size();
			Gen<Integer> index = integers().between(0, Math.max(0, size - 1));
			List<Pair<Integer, Gen<String>>> choices = new ArrayList<>();
			choices.add(Pair.of(3, Generate.constant(body.text())));
			choices.add(Pair.of(4, alpha(0, 12).zip(Json.value(2),
					(key, value) -> body.plus(key.isEmpty() ? "unknown" : key, value).text())));
			choices.add(Pair.of(6, Json.text()
				.zip(integers().between(0, 100), (text, percent) -> text.substring(0, text.length() * percent / 100))));
			choices.add(Pair.of(5, Json.text()));
			choices.add(Pair.of(2, Generate.constant(body.plus("filler", Json.string("x".repeat(70_000))).text())));
			if (size > 0) {
				choices.add(Pair.of(25, index.zip(Json.value(3), (at, value) -> body.with(at, value).text())));
				choices.add(Pair.of(8, index.zip(Json.huge(), (at, value) -> body.with(at, value).text())));
				choices.add(Pair.of(5, index.zip(Json.deep(), (at, value) -> body.with(at, value).text())));
				choices.add(Pair.of(4, index.map(at -> body.without(at).text())));
				choices.add(Pair.of(4, index.zip(Json.value(1),
						(at, value) -> body.plus(body.members().get(at).getKey(), value).text())));
			}
			else {
				choices.add(Pair.of(10, Json.value(3)));
			}
			return Generate.frequency(choices);
		}

	}

	/** Raw JSON text, valid or deliberately not. */
	static final class Json {

		static String string(String text) {
			return dev.ballast.support.Properties.jsonString(text);
		}

		static Gen<String> value(int depth) {
			Gen<String> scalar = Generate.oneOf(integers().all().map(Object::toString),
					longs().all().map(Object::toString), integers().between(-2, 10_002).map(Object::toString),
					doubles().any().map(d -> Double.isFinite(d) ? d.toString() : "1.7976931348623157E308"),
					// Numbers in two decimals, as people write them.
					longs().between(-100_000_000L, 100_000_000L).map(cents -> Double.toString(cents / 100.0)),
					anyChars(40).map(Json::string),
					Generate.pick(List.of("true", "false", "null", "-0", "0.0", "1e2", "1.5", "\"100\"", "\" 50 \"",
							"\"\"", "\"\\ud800\"", "\"\\u0000\"", "\"💥 ünïcödé ℝ\"", "\"2030-01-01T00:00:00Z\"",
							"\"NORMALIZE\"", "\"a\"", "\"blue\"", "{}", "[]", "{\"color\":\"blue\"}", "[10,50,100]",
							"[\"a\"]", "[\"a\",\"a\"]", "[\"\\u0007\"]", "[\"\\ud800\"]", "[\"\\u0000\"]")));
			if (depth == 0) {
				return scalar;
			}
			Gen<String> inner = value(depth - 1);
			Gen<String> array = lists().of(inner).ofSizeBetween(0, 4).map(items -> "[" + String.join(",", items) + "]");
			Gen<String> object = maps().of(anyChars(10), inner)
				.ofSizeBetween(0, 4)
				.map(members -> members.entrySet()
					.stream()
					.map(member -> string(member.getKey()) + ":" + member.getValue())
					.collect(Collectors.joining(",", "{", "}")));
			return Generate.frequency(List.of(Pair.of(6, scalar), Pair.of(1, array), Pair.of(1, object)));
		}

		/** Numbers beyond every range, in every notation. */
		static Gen<String> huge() {
			return Generate.oneOf(integers().between(10, 2_000).map(digits -> "9".repeat(digits)),
					integers().between(10, 2_000).map(digits -> "-1" + "0".repeat(digits)),
					integers().between(1, 2_000).map(digits -> "0." + "0".repeat(digits) + "1"),
					Generate.pick(List.of("1e999999999", "-1e-999999999", "1E400", "9223372036854775808",
							"-9223372036854775809", "2147483648", "4294967296", "1e10", "10000.0000000001", "1.0e4",
							"NaN", "Infinity", "-Infinity", "0x10", "01", "+1", ".5")));
		}

		/** Arrays and objects nested far deeper than any body. */
		static Gen<String> deep() {
			return integers().between(1, 5_000).zip(integers().between(0, 2), (depth, shape) -> switch (shape) {
				case 0 -> "[".repeat(depth) + "]".repeat(depth);
				case 1 -> "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
				default -> "[".repeat(depth);
			});
		}

		/** Whole bodies that are not a JSON object, or not JSON. */
		static Gen<String> text() {
			return Generate.oneOf(value(3), anyChars(60),
					Generate.pick(List.of("", " ", "null", "{", "}", "{\"a\":}", "{\"a\" 1}", "{'a':1}", "{\"a\":1,}",
							"{\"a\":1}{\"b\":2}", "<xml/>", "\uFEFF{}", "{\"address\":\"h\",\"port\":80} trailing",
							"{\"weight\":1}/*c*/", "\u0000", "%7B%7D", "address=h&port=80")));
		}

	}

	/**
	 * A hostile value of the kind a field holds, given the value it holds in a body the
	 * endpoint accepts: a string gets hostile text (a timestamp, hostile timestamps too),
	 * a number hostile numbers, an object a hostile key or value, an array a hostile
	 * item.
	 */
	static final class Hostile {

		static Gen<String> into(String accepted) {
			Gen<String> text = hostileText().map(Json::string);
			if (accepted.startsWith("\"2030")) {
				return Generate.oneOf(hostileTimestamps(), text);
			}
			if (accepted.startsWith("{")) {
				return text.zip(org.quicktheories.generators.SourceDSL.booleans().all(),
						(hostile, asKey) -> asKey ? "{" + hostile + ":\"x\"}" : "{\"color\":" + hostile + "}");
			}
			if (accepted.startsWith("[")) {
				return Generate.oneOf(text, hostileNumbers()).map(item -> "[" + item + "]");
			}
			if (Character.isDigit(accepted.charAt(0)) || accepted.charAt(0) == '-') {
				return hostileNumbers();
			}
			return text;
		}

	}

	/** Headers a careless or hostile client sends. */
	static final class Headers {

		static Gen<Map<String, String>> mutated() {
			Gen<String> contentType = Generate.oneOf(ascii(40),
					Generate.pick(List.of("application/json", "application/merge-patch+json", "text/plain",
							"application/xml", "application/json; charset=UTF-16", "application/json; charset=nonsense",
							"*/*", "application/*", "multipart/form-data; boundary=x",
							"application/x-www-form-urlencoded", "garbage", "", ";;;", "application/json;",
							"application/problem+json")));
			Gen<String> accept = Generate.oneOf(ascii(40),
					Generate.pick(List.of("application/json", "text/event-stream", "application/xml", "text/html",
							"*/*", "application/problem+json", "garbage/", "", "application/json;q=0", "*/*;q=abc")));
			Gen<String> ifMatch = Generate.oneOf(ascii(40), Generate.pick(List.of("\"1\"", "\"4\"", "*", "W/\"4\"",
					"\"\"", "\"-1\"", "\"99999999999999999999999\"", "4", "\"abc\"", "\"1\", \"4\"", "W/", "\"")));
			Gen<String> idempotencyKey = Generate.oneOf(ascii(300),
					Generate.pick(List.of("k1", "k2", "", " ", "\u00e9t\u00e9", "a".repeat(256))));
			Gen<String> lastEventId = Generate.oneOf(ascii(30),
					Generate.pick(List.of("-1", "0", "abc", "99999999999999999999", "1.5", "")));
			Gen<Map.Entry<String, String>> other = alpha(1, 20).zip(ascii(100),
					(name, value) -> Map.entry("X-" + name, value));
			Gen<String> type = orNull(contentType, 30);
			Gen<String> acceptable = orNull(accept, 50);
			Gen<String> match = orNull(ifMatch, 50);
			Gen<String> key = orNull(idempotencyKey, 50);
			Gen<String> eventId = orNull(lastEventId, 70);
			Gen<Map.Entry<String, String>> extra = orNull(other, 70);
			return (random) -> {
				Map<String, String> headers = new LinkedHashMap<>();
				putIfPresent(headers, "Content-Type", type.generate(random));
				putIfPresent(headers, "Accept", acceptable.generate(random));
				putIfPresent(headers, "If-Match", match.generate(random));
				putIfPresent(headers, "Idempotency-Key", key.generate(random));
				putIfPresent(headers, "Last-Event-ID", eventId.generate(random));
				Map.Entry<String, String> header = extra.generate(random);
				if (header != null) {
					headers.put(header.getKey(), header.getValue());
				}
				return headers;
			};
		}

		private static void putIfPresent(Map<String, String> headers, String name, String value) {
			if (value != null) {
				headers.put(name, value);
			}
		}

		/** Values the JDK client will send: visible ASCII and spaces. */
		private static Gen<String> ascii(int maxLength) {
			return charsBetween(' ', '~', 0, maxLength).map(String::strip);
		}

	}

	/** Path segments, already percent-encoded where the URI syntax needs it. */
	static final class Segments {

		static Gen<String> junk() {
			return Generate.oneOf(
					Generate.pick(List.of("..", ".", "%2e%2e", "%2E", "%2F", "a%2Fb", "%00", "%e2%82", "%C3%A9",
							"%F0%9F%92%A5", ";", "a;b=c", "%3B", "%20", "+", "~", "a..b", "%25", "*", "%5C", "",
							"Payments", "-a", "a-", "-1", "0", "99999999999999999999", "1e3", "0x10", "%2e", "a%00b",
							"..%2F..%2Fetc", "%252e%252e", "con", "null", "a:b", "10.0.0.5:8080")),
					integers().between(60, 9_000).map("a"::repeat),
					lists().of(integers().between(0, 255))
						.ofSizeBetween(1, 30)
						.map(bytes -> bytes.stream().map(b -> "%%%02X".formatted(b)).collect(Collectors.joining())),
					charsBetween(Character.MIN_VALUE, Character.MAX_VALUE, 1, 30)
						.map(text -> URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20")),
					charsOf("abcxyz019-._~:@!$&'()*+,;=", 1, 140));
		}

	}

}

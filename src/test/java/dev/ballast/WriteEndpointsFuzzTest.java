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
import dev.ballast.support.Names;
import dev.ballast.support.OtherNode;
import dev.ballast.support.Registration;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

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

	private static OtherNode node;

	private static Api api;

	private static JdbcClient jdbc;

	private static Instant started;

	private static final Map<Boolean, Fixture> clean = new LinkedHashMap<>();

	@BeforeContainer
	static void startNode() {
		// This node's timers stay off: a lease sweep between two snapshots is not the
		// request's doing.
		node = OtherNode.start("ballast.lease.scheduled=false");
		api = Api.on(node.port());
		jdbc = node.bean(JdbcClient.class);
		started = jdbc.sql("SELECT now()").query(java.sql.Timestamp.class).single().toInstant();
	}

	@AfterContainer
	static void stopNode() {
		node.close();
	}

	@Property(tries = 200, shrinking = ShrinkingMode.BOUNDED)
	void mutatedBodiesAreRefusedWithoutWriting(@ForAll("mutatedBodies") Attempt attempt) {
		check(attempt);
	}

	@Property(tries = 150, shrinking = ShrinkingMode.BOUNDED)
	void mutatedHeadersAreRefusedWithoutWriting(@ForAll("mutatedHeaders") Attempt attempt) {
		check(attempt);
	}

	@Property(tries = 150, shrinking = ShrinkingMode.BOUNDED)
	void mutatedPathsAreRefusedWithoutWriting(@ForAll("mutatedPaths") Attempt attempt) {
		check(attempt);
	}

	/** Found by the fuzzer: a wildcard Content-Type made Spring's body reading throw. */
	@Example
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
	 * Malformed percent escapes, which the JDK client will not send: refused by the
	 * server with 400, nothing written.
	 */
	@Example
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
				status = new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
			}
			assertThat(status).as(path).startsWith("HTTP/1.1 4");
			assertThat(snapshot(fixture)).as(path).isEqualTo(before);
		}
	}

	/**
	 * Found by the fuzzer: Spring chose the answer's media type after the handler ran, so
	 * the edit was committed and then answered 406.
	 */
	@Example
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
		Statistics.label("status").collect(status);
		assertThat(status).as("%s %s answered %d: %s", attempt.endpoint().method, path, status, response.body())
			.isBetween(200, 499)
			.isNotIn(300, 301, 302, 303, 304, 307, 308);
		if (status >= 400) {
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
	 * Everything kept about the fixture's service, and every service and instance created
	 * since the test started (a refused request to another path must not create one).
	 * Kept answers to {@code Idempotency-Key}s are left out: refusals are kept and
	 * replayed by design.
	 */
	private static List<String> snapshot(Fixture fixture) {
		List<String> rows = new ArrayList<>();
		for (String table : List.of("service", "instance", "change_log", "subscriber", "mode_schedule",
				"weight_override", "release", "audit_event")) {
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

	@Provide
	Arbitrary<Attempt> mutatedBodies() {
		return Arbitraries.of(Endpoint.values())
			.flatMap(endpoint -> Bodies.mutated(endpoint.body)
				.map(body -> new Attempt(endpoint, null, null, body, Map.of("Content-Type", "application/json"))));
	}

	@Provide
	Arbitrary<Attempt> mutatedHeaders() {
		return Arbitraries.of(Endpoint.values())
			.flatMap(endpoint -> Headers.mutated()
				.map(headers -> new Attempt(endpoint, null, null, endpoint.body == null ? null : endpoint.body.text(),
						headers)));
	}

	@Provide
	Arbitrary<Attempt> mutatedPaths() {
		Arbitrary<String> segment = Segments.junk();
		return Combinators.combine(Arbitraries.of(Endpoint.values()), segment.injectNull(0.4), segment.injectNull(0.4))
			.as((endpoint, service, second) -> new Attempt(endpoint, service, second,
					endpoint.body == null ? null : endpoint.body.text(), Map.of("Content-Type", "application/json")));
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
				assertThat(api
					.put("/v1/services/%s/instances/%s".formatted(service, id),
							Registration.at("10.0.0.9", 8080)
								.weight(100)
								.zone("az-1")
								.metadata("color", color)
								.leaseTtlSeconds(300))
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
						"{\"color\":\"green\",\"v\":\"2\"}", "leaseTtlSeconds", "300")),
		DEREGISTER("DELETE", "/instances/{second}", Second.INSTANCE, false, null),
		HEARTBEAT("POST", "/instances/{second}/heartbeat", Second.INSTANCE, false, null),
		EDIT_SERVICE("PATCH", "", Second.NONE, false,
				Body.of("weightPolicy", "\"NORMALIZE\"", "defaultWeight", "50", "leaseTtlSeconds", "60",
						"maxUnroutablePercent", "50", "maxEjectionPercent", "30")),
		EDIT_INSTANCE("PATCH", "/instances/{second}", Second.INSTANCE, false,
				Body.of("weight", "50", "zone", "\"az-2\"", "metadata", "{\"color\":\"green\",\"v\":null}", "until",
						"\"2030-01-01T00:00:00Z\"")),
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

		static Arbitrary<String> mutated(Body base) {
			Body body = base == null ? Body.of() : base;
			int size = body.members().size();
			Arbitrary<Integer> index = Arbitraries.integers().between(0, Math.max(0, size - 1));
			List<net.jqwik.api.Tuple.Tuple2<Integer, Arbitrary<String>>> choices = new ArrayList<>();
			choices.add(net.jqwik.api.Tuple.of(3, Arbitraries.just(body.text())));
			choices.add(net.jqwik.api.Tuple.of(4, Arbitraries.strings()
				.alpha()
				.ofMaxLength(12)
				.flatMap(key -> Json.value(2).map(value -> body.plus(key.isEmpty() ? "unknown" : key, value).text()))));
			choices
				.add(net.jqwik.api.Tuple.of(6, Combinators.combine(Json.text(), Arbitraries.integers().between(0, 100))
					.as((text, percent) -> text.substring(0, text.length() * percent / 100))));
			choices.add(net.jqwik.api.Tuple.of(5, Json.text()));
			choices.add(net.jqwik.api.Tuple.of(2, Arbitraries.just("x".repeat(70_000))
				.map(filler -> body.plus("filler", Json.string(filler)).text())));
			if (size > 0) {
				choices.add(net.jqwik.api.Tuple.of(25,
						Combinators.combine(index, Json.value(3)).as((at, value) -> body.with(at, value).text())));
				choices.add(net.jqwik.api.Tuple.of(8,
						Combinators.combine(index, Json.huge()).as((at, value) -> body.with(at, value).text())));
				choices.add(net.jqwik.api.Tuple.of(5,
						Combinators.combine(index, Json.deep()).as((at, value) -> body.with(at, value).text())));
				choices.add(net.jqwik.api.Tuple.of(4, index.map(at -> body.without(at).text())));
				choices.add(net.jqwik.api.Tuple.of(4, Combinators.combine(index, Json.value(1))
					.as((at, value) -> body.plus(body.members().get(at).getKey(), value).text())));
			}
			else {
				choices.add(net.jqwik.api.Tuple.of(10, Json.value(3)));
			}
			return Arbitraries.frequencyOf(choices.toArray(net.jqwik.api.Tuple.Tuple2[]::new));
		}

	}

	/** Raw JSON text, valid or deliberately not. */
	static final class Json {

		static String string(String text) {
			StringBuilder out = new StringBuilder("\"");
			for (char c : text.toCharArray()) {
				switch (c) {
					case '"' -> out.append("\\\"");
					case '\\' -> out.append("\\\\");
					default -> {
						if (c < 0x20 || Character.isSurrogate(c)) {
							out.append("\\u%04x".formatted((int) c));
						}
						else {
							out.append(c);
						}
					}
				}
			}
			return out.append('"').toString();
		}

		static Arbitrary<String> value(int depth) {
			Arbitrary<String> scalar = Arbitraries.oneOf(Arbitraries.integers().map(Object::toString),
					Arbitraries.longs().map(Object::toString),
					Arbitraries.integers().between(-2, 10_002).map(Object::toString),
					Arbitraries.doubles()
						.map(Object::toString)
						.filter(text -> !text.contains("N") && !text.contains("I")),
					Arbitraries.strings().all().ofMaxLength(40).map(Json::string),
					Arbitraries.of("true", "false", "null", "-0", "0.0", "1e2", "1.5", "\"100\"", "\" 50 \"", "\"\"",
							"\"\\ud800\"", "\"\\u0000\"", "\"💥 ünïcödé ℝ\"", "\"2030-01-01T00:00:00Z\"",
							"\"NORMALIZE\"", "\"a\"", "\"blue\"", "{}", "[]", "{\"color\":\"blue\"}", "[10,50,100]",
							"[\"a\"]"));
			if (depth == 0) {
				return scalar;
			}
			Arbitrary<String> inner = value(depth - 1);
			Arbitrary<String> array = inner.list().ofMaxSize(4).map(items -> "[" + String.join(",", items) + "]");
			Arbitrary<String> object = Arbitraries.maps(Arbitraries.strings().all().ofMaxLength(10), inner)
				.ofMaxSize(4)
				.map(members -> members.entrySet()
					.stream()
					.map(member -> string(member.getKey()) + ":" + member.getValue())
					.collect(Collectors.joining(",", "{", "}")));
			return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, scalar), net.jqwik.api.Tuple.of(1, array),
					net.jqwik.api.Tuple.of(1, object));
		}

		/** Numbers beyond every range, in every notation. */
		static Arbitrary<String> huge() {
			return Arbitraries.oneOf(Arbitraries.integers().between(10, 2_000).map(digits -> "9".repeat(digits)),
					Arbitraries.integers().between(10, 2_000).map(digits -> "-1" + "0".repeat(digits)),
					Arbitraries.integers().between(1, 2_000).map(digits -> "0." + "0".repeat(digits) + "1"),
					Arbitraries.of("1e999999999", "-1e-999999999", "1E400", "9223372036854775808",
							"-9223372036854775809", "2147483648", "4294967296", "1e10", "10000.0000000001", "1.0e4",
							"NaN", "Infinity", "-Infinity", "0x10", "01", "+1", ".5"));
		}

		/** Arrays and objects nested far deeper than any body. */
		static Arbitrary<String> deep() {
			return Arbitraries.integers()
				.between(1, 5_000)
				.flatMap(depth -> Arbitraries.of("[".repeat(depth) + "]".repeat(depth),
						"{\"a\":".repeat(depth) + "1" + "}".repeat(depth), "[".repeat(depth)));
		}

		/** Whole bodies that are not a JSON object, or not JSON. */
		static Arbitrary<String> text() {
			return Arbitraries.oneOf(value(3), Arbitraries.strings().all().ofMaxLength(60),
					Arbitraries.of("", " ", "null", "{", "}", "{\"a\":}", "{\"a\" 1}", "{'a':1}", "{\"a\":1,}",
							"{\"a\":1}{\"b\":2}", "<xml/>", "\uFEFF{}", "{\"address\":\"h\",\"port\":80} trailing",
							"{\"weight\":1}/*c*/", "\u0000", "%7B%7D", "address=h&port=80"));
		}

	}

	/** Headers a careless or hostile client sends. */
	static final class Headers {

		static Arbitrary<Map<String, String>> mutated() {
			Arbitrary<String> contentType = Arbitraries.oneOf(ascii(40),
					Arbitraries.of("application/json", "application/merge-patch+json", "text/plain", "application/xml",
							"application/json; charset=UTF-16", "application/json; charset=nonsense", "*/*",
							"application/*", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded",
							"garbage", "", ";;;", "application/json;", "application/problem+json"));
			Arbitrary<String> accept = Arbitraries.oneOf(ascii(40),
					Arbitraries.of("application/json", "text/event-stream", "application/xml", "text/html", "*/*",
							"application/problem+json", "garbage/", "", "application/json;q=0", "*/*;q=abc"));
			Arbitrary<String> ifMatch = Arbitraries.oneOf(ascii(40), Arbitraries.of("\"1\"", "\"4\"", "*", "W/\"4\"",
					"\"\"", "\"-1\"", "\"99999999999999999999999\"", "4", "\"abc\"", "\"1\", \"4\"", "W/", "\""));
			Arbitrary<String> idempotencyKey = Arbitraries.oneOf(ascii(300),
					Arbitraries.of("k1", "k2", "", " ", "\u00e9t\u00e9", "a".repeat(256)));
			Arbitrary<String> lastEventId = Arbitraries.oneOf(ascii(30),
					Arbitraries.of("-1", "0", "abc", "99999999999999999999", "1.5", ""));
			Arbitrary<Map.Entry<String, String>> other = Combinators
				.combine(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20), ascii(100))
				.as((name, value) -> Map.entry("X-" + name, value));
			return Combinators
				.combine(contentType.injectNull(0.3), accept.injectNull(0.5), ifMatch.injectNull(0.5),
						idempotencyKey.injectNull(0.5), lastEventId.injectNull(0.7), other.injectNull(0.7))
				.as((type, acceptable, match, key, eventId, extra) -> {
					Map<String, String> headers = new LinkedHashMap<>();
					putIfPresent(headers, "Content-Type", type);
					putIfPresent(headers, "Accept", acceptable);
					putIfPresent(headers, "If-Match", match);
					putIfPresent(headers, "Idempotency-Key", key);
					putIfPresent(headers, "Last-Event-ID", eventId);
					if (extra != null) {
						headers.put(extra.getKey(), extra.getValue());
					}
					return headers;
				});
		}

		private static void putIfPresent(Map<String, String> headers, String name, String value) {
			if (value != null) {
				headers.put(name, value);
			}
		}

		/** Values the JDK client will send: visible ASCII and spaces. */
		private static Arbitrary<String> ascii(int maxLength) {
			return Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(maxLength).map(String::strip);
		}

	}

	/** Path segments, already percent-encoded where the URI syntax needs it. */
	static final class Segments {

		static Arbitrary<String> junk() {
			return Arbitraries.oneOf(
					Arbitraries.of("..", ".", "%2e%2e", "%2E", "%2F", "a%2Fb", "%00", "%e2%82", "%C3%A9",
							"%F0%9F%92%A5", ";", "a;b=c", "%3B", "%20", "+", "~", "a..b", "%25", "*", "%5C", "",
							"Payments", "-a", "a-", "-1", "0", "99999999999999999999", "1e3", "0x10", "%2e", "a%00b",
							"..%2F..%2Fetc", "%252e%252e", "con", "null", "a:b", "10.0.0.5:8080"),
					Arbitraries.integers().between(60, 9_000).map("a"::repeat),
					Arbitraries.bytes()
						.list()
						.ofMinSize(1)
						.ofMaxSize(30)
						.map(bytes -> bytes.stream()
							.map(b -> "%%%02X".formatted(b & 0xff))
							.collect(Collectors.joining())),
					Arbitraries.strings()
						.all()
						.ofMinLength(1)
						.ofMaxLength(30)
						.map(text -> URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20")),
					Arbitraries.strings().withChars("abcxyz019-._~:@!$&'()*+,;=").ofMinLength(1).ofMaxLength(140));
		}

	}

}

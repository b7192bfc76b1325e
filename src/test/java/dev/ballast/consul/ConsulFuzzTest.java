package dev.ballast.consul;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ballast.support.CleanWrites;
import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import dev.ballast.support.ServerLog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

import static dev.ballast.support.Properties.hostileNumbers;
import static dev.ballast.support.Properties.hostileText;
import static dev.ballast.support.Properties.jsonString;
import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.strings;

/**
 * Mutated bodies, path segments and parameters sent to every write endpoint of the
 * Consul-compatible surface: never a 5xx, never late, and a refused request (4xx) leaves
 * the fixture's service, its instances and its audit log, and the set of services,
 * exactly as they were. After an accepted request the fixture is replaced, since what it
 * did (an absorbed heartbeat) may still be written.
 */
@RegistryTest
public class ConsulFuzzTest extends ConsulFixture {

	/** The endpoints fuzzed here, for {@code FuzzCoverageTest}. */
	public static final List<String> ENDPOINTS = List.of("PUT /v1/agent/service/register",
			"PUT /v1/agent/service/deregister/{id}", "PUT /v1/agent/check/{state}/{check}",
			"PUT /v1/agent/service/maintenance/{id}");

	private static final Duration HANG = Duration.ofSeconds(10);

	/** JSON values that are wrong somewhere, or everywhere. */
	private static final List<String> VALUES = List.of("null", "true", "0", "-1", "1.5", "1e400", "100.0", "\"\"",
			"\"0\"", "\"10001\"", "\"050\"", "\" 5\"", "\"NaN\"", "\"x\"", "\"a b\"", "\"UPPER\"", "[]", "[1]",
			"[\"v1\"]", "[\"v1\",\"v1\"]", "[\"\"]", "[\"\\u0000\"]", "[\"\\u0007x\"]", "[\"\\ud800\"]", "[null]", "{}",
			"{\"weight\":\"0\"}", "{\"weight\":\"1.0\"}", "{\"Weight\":\"5\"}", "{\"ballast.x\":\"1\"}", "{\"k\":1}",
			"{\"Passing\":0}", "{\"Passing\":\"5\"}", "{\"Passing\":10001}", "{\"TTL\":\"2s\"}", "{\"TTL\":\"301s\"}",
			"{\"TTL\":\"1.5s\"}", "{\"TTL\":\"30\"}", "{\"HTTP\":\"http://x\",\"Interval\":\"5s\"}",
			"{\"TCP\":\"x:1\"}", "{\"Args\":[\"/bin/true\"]}", "{\"TTL\":\"30s\",\"CheckID\":\"other\"}",
			"{\"TTL\":\"30s\",\"Status\":\"bogus\"}", "{\"TTL\":\"30s\",\"DeregisterCriticalServiceAfter\":\"soon\"}",
			"\"" + "x".repeat(300) + "\"", "65536", "99999999999999999999");

	private static final List<String> FIELDS = List.of("ID", "Name", "Address", "Port", "Meta", "Weights", "Check",
			"Checks", "Tags", "id", "NAME", "port", "meta");

	private static final List<String> SEGMENTS = List.of("", "a%20b", "%00", "%25", "%2F", "x%3Ay", "..", "service:",
			"service%3A", "service:%20", "%C3%A9", "x".repeat(200), "UPPER", "serfHealth", "service:nobody", "a;b",
			"service:a:1");

	private static final List<String> STATES = List.of("pass", "warn", "fail", "update", "PASS", "", "x");

	private static final List<String> ENABLES = List.of("", "true", "false", "maybe", "1", "t", "%00", "yes", "TRUE");

	@Autowired
	JdbcClient jdbc;

	ConsulFuzzTest() {
		super("cfz");
	}

	@BeforeEach
	void registerTheFixture() {
		fixture();
	}

	@Test
	void mutatedRegistrationsAreRefusedWithoutWriting() {
		qt(150)
			.forAll(integers().between(0, FIELDS.size() - 1), integers().between(0, VALUES.size() - 1),
					integers().between(0, 3))
			.checkAssert((field, value, shape) -> {
				String body = switch (shape) {
					case 0 -> registration(Map.of(FIELDS.get(field), VALUES.get(value)));
					case 1 -> registration(Map.of("Check",
							"{\"TTL\":\"30s\",\"" + FIELDS.get(field) + "\":" + VALUES.get(value) + "}"));
					case 2 -> registration(Map.of("Meta", "{\"weight\":" + VALUES.get(value) + "}"));
					default -> registration(Map.of()).substring(0, 1 + value % 60);
				};
				check("/v1/agent/service/register", body);
			});
	}

	@Test
	void mutatedPathsAndParametersAreRefusedWithoutWriting() {
		qt(150)
			.forAll(integers().between(0, SEGMENTS.size() + 1), integers().between(0, STATES.size() - 1),
					integers().between(0, ENABLES.size() - 1), integers().between(0, 2))
			.checkAssert((segment, state, enable, endpoint) -> {
				String target = segment < SEGMENTS.size() ? SEGMENTS.get(segment)
						: segment == SEGMENTS.size() ? "i1." + service : "service:i1." + service;
				String path = switch (endpoint) {
					case 0 -> "/v1/agent/service/deregister/" + target;
					case 1 -> "/v1/agent/check/" + STATES.get(state) + "/" + target;
					default -> "/v1/agent/service/maintenance/" + target + "?enable=" + ENABLES.get(enable) + "&reason="
							+ "r".repeat(state * 100);
				};
				check(path, null);
			});
	}

	/**
	 * NUL, lone surrogates and control characters in every string of a registration (its
	 * ID, Name, Address, a Meta key or value, a tag, the check's TTL and status), numbers
	 * at every integer edge in its numbers, and hostile text in the maintenance reason;
	 * one case in three sent beside clean registrations into other services, which share
	 * its commit group. Never a 5xx, a refusal writes nothing, every clean write
	 * succeeds, and the server logs no ERROR.
	 */
	@Test
	void hostileValuesInEveryFieldFailAloneBesideCleanWrites() {
		try (ServerLog log = ServerLog.open()) {
			qt(120).forAll(hostileText(), hostileNumbers(), integers().between(0, 9), integers().between(0, 2))
				.checkAssert((text, number, field, share) -> {
					String hostile = jsonString(text);
					String path = "/v1/agent/service/register";
					String body = switch (field) {
						case 0 -> registration(Map.of("ID", hostile));
						case 1 -> registration(Map.of("Name", hostile));
						case 2 -> registration(Map.of("Address", hostile));
						case 3 -> registration(Map.of("Meta", "{\"v\":" + hostile + "}"));
						case 4 -> registration(Map.of("Meta", "{" + hostile + ":\"1\"}"));
						case 5 -> registration(Map.of("Tags", "[" + hostile + "]"));
						case 6 -> registration(Map.of("Check", "{\"TTL\":" + hostile + "}"));
						case 7 -> registration(Map.of("Port", number));
						case 8 -> registration(Map.of("Weights", "{\"Passing\":" + number + "}"));
						default -> null;
					};
					if (body == null) {
						path = "/v1/agent/service/maintenance/i1.%s?enable=true&reason=%s".formatted(service,
								java.net.URLEncoder.encode(text, java.nio.charset.StandardCharsets.UTF_8));
					}
					if (share == 0) {
						checkBesideCleanWrites(path, body);
					}
					else {
						check(path, body);
					}
				});
			assertThat(log.errors()).as("ERROR lines the server logged during the fuzz run").isEmpty();
		}
	}

	/**
	 * The zone tag of a read ({@code ballast.zone=<zone>}) with hostile and random zones,
	 * encoded as a client would send them, on both reads and in any case: never a 5xx,
	 * answered only for a zone name a registration could carry, else 400 naming
	 * {@code tag}.
	 */
	@Test
	void hostileZoneTagsOnReadsAreAnsweredOnlyForAZoneName() {
		Gen<String> zones = hostileText().mix(strings().basicLatinAlphabet().ofLengthBetween(0, 70), 50);
		qt(150).forAll(zones, integers().between(0, 3)).checkAssert((zone, form) -> {
			String tag = (form % 2 == 0 ? "ballast.zone=" : "BALLAST.Zone=") + zone;
			String path = (form < 2 ? "/v1/health/service/" : "/v1/catalog/service/") + service + "?tag="
					+ java.net.URLEncoder.encode(tag, java.nio.charset.StandardCharsets.UTF_8);
			HttpResponse<String> response = api.raw("GET", path, null, Map.of(), HANG);
			String call = "GET " + path + " → " + response.statusCode() + " " + response.body();
			boolean named = zone.matches("[A-Za-z0-9._-]{1,63}");
			assertThat(response.statusCode()).as(call).isEqualTo(named ? 200 : 400);
			if (!named) {
				assertThat(response.body()).as(call).startsWith("Invalid tag: ");
			}
		});
	}

	/**
	 * A valid registration of a new instance of the fixture, with some members replaced.
	 */
	private String registration(Map<String, String> replaced) {
		Map<String, String> members = new java.util.LinkedHashMap<>();
		members.put("ID", "\"n." + service + "\"");
		members.put("Name", "\"" + service + "\"");
		members.put("Address", "\"10.0.0.9\"");
		members.put("Port", "8080");
		members.put("Meta", "{\"v\":\"1\"}");
		members.put("Tags", "[\"v1\",\"traefik.enable=true\"]");
		members.put("Check", "{\"TTL\":\"30s\"}");
		members.putAll(replaced);
		return members.entrySet()
			.stream()
			.map(member -> "\"" + member.getKey() + "\":" + member.getValue())
			.collect(java.util.stream.Collectors.joining(",", "{", "}"));
	}

	private void check(String path, String body) {
		String before = snapshot();
		long started = System.nanoTime();
		HttpResponse<String> response = api.raw("PUT", path, body,
				body == null ? Map.of() : Map.of("Content-Type", "application/json"), HANG);
		String call = "PUT " + path + " " + body + " → " + response.statusCode() + " " + response.body();
		assertThat(response.statusCode()).as("never a 5xx: %s", call).isLessThan(500);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as(call).isLessThan(HANG);
		if (response.statusCode() >= 400) {
			assertThat(snapshot()).as("a refused request writes nothing: %s", call).isEqualTo(before);
		}
		else {
			service = Names.service("cfz");
			fixture();
		}
	}

	/**
	 * {@link #check}, with the request sent beside clean registrations into services of
	 * their own, which the snapshot's count of services leaves out.
	 */
	private void checkBesideCleanWrites(String path, String body) {
		String before = fixtureSnapshot();
		HttpResponse<String> response = CleanWrites.beside(api, () -> api.raw("PUT", path, body,
				body == null ? Map.of() : Map.of("Content-Type", "application/json"), HANG));
		String call = "PUT " + path + " " + body + " → " + response.statusCode() + " " + response.body();
		assertThat(response.statusCode()).as("never a 5xx: %s", call).isLessThan(500);
		if (response.statusCode() >= 400) {
			assertThat(fixtureSnapshot()).as("a refused request writes nothing: %s", call).isEqualTo(before);
		}
		else {
			service = Names.service("cfz");
			fixture();
		}
	}

	/** {@link #snapshot} without the count of every service. */
	private String fixtureSnapshot() {
		String all = snapshot();
		return all.substring(all.indexOf('|'));
	}

	/**
	 * Four quiet instances (leases of 300 s) of the test's service, registered through
	 * Consul.
	 */
	private void fixture() {
		for (String id : List.of("i1", "i2", "i3", "i4")) {
			register(id, "300s", "");
		}
	}

	private String snapshot() {
		return jdbc.sql("""
				SELECT (SELECT count(*) FROM service)
				       || '|' || (SELECT s::text FROM service s WHERE name = :service)
				       || '|' || (SELECT coalesce(string_agg(i::text, ';' ORDER BY id), '') FROM instance i
				                   WHERE service = :service)
				       || '|' || (SELECT count(*) FROM instance WHERE id LIKE '%.' || :service)
				       || '|' || (SELECT count(*) FROM audit_event WHERE service = :service)""")
			.param("service", service)
			.query(String.class)
			.single();
	}

}

package dev.ballast.probe;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import dev.ballast.support.TestDatabase;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the registry runs, against real sockets on loopback: a server that answers 500,
 * one that accepts and never answers, a port that refuses, and one that answers 200. Each
 * reaches its status within handover + interval × threshold + timeout; a service whose
 * every check fails keeps the ejection cap's share routable; heartbeats do not bring back
 * an instance whose check fails; a check of another address is refused and nothing is
 * written.
 */
@RegistryTest
class ProbedHealthTest {

	/** Handover (2 s) + a beat (1 s) + 2 intervals of 1 s + timeout, with room. */
	static final Duration VERDICT = Duration.ofSeconds(15);

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Autowired
	Prober prober;

	final TestTargets targets = new TestTargets();

	@AfterEach
	void closeTargets() throws Exception {
		targets.close();
	}

	@Test
	void eachFailureReachesCriticalAndTheCapKeepsTheRestRoutable() {
		Api api = Api.on(port);
		String service = Names.service("probed");
		int healthy = targets.answering(200).port();
		int failing = targets.answering(500).port();
		int hanging = targets.hanging();
		int refusing = TestTargets.refusing();
		register(api, service, "ok", healthy, http(healthy));
		register(api, service, "err", failing, http(failing));
		register(api, service, "hang", hanging, http(hanging));
		register(api, service, "refuse", refusing, tcp(refusing));
		register(api, service, "ok2", healthy, tcp(healthy));

		Awaitility.await().atMost(VERDICT).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
			Map<String, JsonNode> instances = instances(api, service);
			assertThat(instances.get("err").path("health").stringValue()).isEqualTo("CRITICAL");
			assertThat(instances.get("hang").path("health").stringValue()).isEqualTo("CRITICAL");
			assertThat(instances.get("refuse").path("health").stringValue()).isEqualTo("CRITICAL");
		});
		Map<String, JsonNode> instances = instances(api, service);
		assertThat(instances.get("ok").path("health").stringValue()).isEqualTo("PASSING");
		assertThat(instances.get("ok2").path("health").stringValue()).isEqualTo("PASSING");
		// The default cap (20% of 500) lets expiry and probes take one instance out.
		long routable = instances.values().stream().filter(i -> i.path("effectiveWeight").intValue() > 0).count();
		assertThat(routable).isEqualTo(4);

		JsonNode checks = consul().get("/v1/health/checks/" + service).json();
		Map<String, String> outputs = new HashMap<>();
		checks.forEach(check -> outputs.put(check.path("ServiceID").stringValue(), check.path("Status").stringValue()
				+ " " + check.path("Type").stringValue() + " " + check.path("Output").stringValue()));
		assertThat(outputs.get("err")).startsWith("critical http").contains(": 500 Output: status 500");
		assertThat(outputs.get("hang")).startsWith("critical http").contains("no answer within 300 ms");
		assertThat(outputs.get("refuse")).startsWith("critical tcp");
		assertThat(outputs.get("ok")).startsWith("passing http");
		assertThat(audited(service, "instance.probe-fail")).isEqualTo(3);
	}

	@Test
	void aServiceWhoseEveryCheckFailsStaysRoutableWithinTheCap() {
		Api api = Api.on(port);
		String service = Names.service("allfail");
		for (String id : new String[] { "a", "b", "c" }) {
			int failing = targets.answering(503).port();
			register(api, service, id, failing, http(failing));
		}
		Awaitility.await().atMost(VERDICT).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
			assertThat(instances(api, service).values())
				.allSatisfy(instance -> assertThat(instance.path("health").stringValue()).isEqualTo("CRITICAL"));
		});
		long routable = instances(api, service).values()
			.stream()
			.filter(instance -> instance.path("effectiveWeight").intValue() > 0)
			.count();
		assertThat(routable).as("one of three may be ejected (the first of many); the cap holds the others")
			.isEqualTo(2);
	}

	@Test
	void aRecoveredCheckBringsItsInstanceBackAfterItsSuccessThreshold() {
		Api api = Api.on(port);
		String service = Names.service("recover");
		TestTargets.Answering target = targets.answering(500);
		int other = targets.answering(200).port();
		register(api, service, "flaky", target.port(), http(target.port()));
		register(api, service, "steady", other, http(other));
		Awaitility.await()
			.atMost(VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> instances(api, service).get("flaky").path("effectiveWeight").intValue() == 0);
		target.answer(200);
		Awaitility.await().atMost(VERDICT).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
			JsonNode flaky = instances(api, service).get("flaky");
			assertThat(flaky.path("health").stringValue()).isEqualTo("PASSING");
			assertThat(flaky.path("effectiveWeight").intValue()).isEqualTo(100);
		});
		assertThat(audited(service, "instance.probe-pass") + audited(service, "instance.probe-fail")).isEqualTo(2);
	}

	@Test
	void reRegisteringAnInstanceWhoseCheckFailsJudgesItAfresh() {
		Api api = Api.on(port);
		String service = Names.service("rereg");
		int failing = targets.answering(500).port();
		int other = targets.answering(200).port();
		register(api, service, "bad", failing, http(failing));
		register(api, service, "good", other, http(other));
		Awaitility.await()
			.atMost(VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> instances(api, service).get("bad").path("health").stringValue().equals("CRITICAL"));
		// The same registration again (a client that re-registers): it starts passing,
		// and the probes that still fail must make it critical again.
		register(api, service, "bad", failing, http(failing));
		assertThat(instances(api, service).get("bad").path("health").stringValue()).isEqualTo("PASSING");
		Awaitility.await()
			.atMost(VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> instances(api, service).get("bad").path("health").stringValue().equals("CRITICAL"));
		assertThat(audited(service, "instance.probe-fail")).isEqualTo(2);
	}

	@Test
	void aReRegistrationThatChangesOnlyItsCheckIsProbedByTheNewCheck() {
		Api api = Api.on(port);
		String service = Names.service("recheck");
		TestTargets.Answering answering = targets.answering(200);
		int server = answering.port();
		register(api, service, "a", server, http(server));
		register(api, service, "b", server, http(server));
		Awaitility.await()
			.atMost(VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> answering.hits().get() >= 2
					&& prober.owned().stream().filter(key -> key.startsWith(service + "/")).count() == 2);
		long revision = api.get("/v1/services/" + service).json().path("revision").longValue();
		// The instance stays as it was, so nothing but its check changes: the server has
		// no /elsewhere and answers 404.
		Api.Reply again = api.put("/v1/services/%s/instances/a".formatted(service),
				"{\"address\":\"127.0.0.1\",\"port\":%d,\"checks\":[%s]}".formatted(server,
						http(server).replace("/health", "/elsewhere")));
		assertThat(again.status()).as(again.body()).isEqualTo(200);
		assertThat(api.get("/v1/services/" + service).json().path("revision").longValue())
			.as("an unchanged instance bumps no revision, so only the checks tell")
			.isEqualTo(revision);
		Awaitility.await()
			.atMost(VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> instances(api, service).get("a").path("health").stringValue().equals("CRITICAL"));
		assertThat(instances(api, service).get("b").path("health").stringValue()).isEqualTo("PASSING");
	}

	@Test
	void heartbeatsDoNotBringBackAnInstanceWhoseCheckFails() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("hung");
		int hanging = targets.hanging();
		int other = targets.answering(200).port();
		// The hung process: its heartbeat thread renews a lease of its own while its
		// request threads never answer.
		api.put("/v1/services/%s/instances/hung".formatted(service),
				"{\"address\":\"127.0.0.1\",\"port\":%d,\"leaseTtlSeconds\":5,\"checks\":[%s]}".formatted(hanging,
						http(hanging)));
		register(api, service, "fine", other, http(other));
		ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();
		List<Integer> answered = new CopyOnWriteArrayList<>();
		try {
			beats.scheduleAtFixedRate(() -> {
				try {
					answered
						.add(api.send("POST", "/v1/services/%s/instances/hung/heartbeat".formatted(service), null, null)
							.status());
				}
				catch (RuntimeException | AssertionError ex) {
					answered.add(-1);
				}
			}, 0, 300, TimeUnit.MILLISECONDS);
			Awaitility.await()
				.atMost(VERDICT)
				.pollInterval(Duration.ofMillis(200))
				.until(() -> instances(api, service).get("hung").path("health").stringValue().equals("CRITICAL"));
			Thread.sleep(2000);
			JsonNode hung = instances(api, service).get("hung");
			assertThat(hung.path("health").stringValue()).isEqualTo("CRITICAL");
			assertThat(hung.path("effectiveWeight").intValue()).isZero();
			assertThat(answered).as("heartbeats kept coming and were taken").hasSizeGreaterThan(10).containsOnly(200);
		}
		finally {
			beats.shutdownNow();
			assertThat(beats.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void refusesChecksItMayNotRunNamingTheFieldAndWritesNothing() {
		Api api = Api.on(port);
		String service = Names.service("ssrf");
		int own = targets.answering(200).port();
		String path = "/v1/services/%s/instances/x".formatted(service);
		Map<String, String> refused = Map.of(
				"{\"http\":\"http://10.1.2.3:%d/health\",\"intervalSeconds\":5}".formatted(own), "/checks/0/http",
				"{\"http\":\"http://127.0.0.1:%d/health\",\"intervalSeconds\":5}".formatted(own + 1), "/checks/0/http",
				"{\"http\":\"file:///etc/passwd\",\"intervalSeconds\":5}", "/checks/0/http",
				"{\"http\":\"http://user:pw@127.0.0.1:%d/health\",\"intervalSeconds\":5}".formatted(own),
				"/checks/0/http", "{\"tcp\":\"127.0.0.1:%d\",\"intervalSeconds\":0}".formatted(own),
				"/checks/0/intervalSeconds",
				"{\"tcp\":\"127.0.0.1:%d\",\"intervalSeconds\":2,\"timeoutMillis\":2000}".formatted(own),
				"/checks/0/timeoutMillis",
				"{\"tcp\":\"127.0.0.1:%d\",\"http\":\"http://127.0.0.1:%d/\",\"intervalSeconds\":2}".formatted(own,
						own),
				"/checks/0/http", "{\"tcp\":\"127.0.0.1:%d\"}".formatted(own), "/checks/0/intervalSeconds",
				"{\"http\":\"http://127.0.0.1:%d/health\",\"method\":\"POST\",\"intervalSeconds\":5}".formatted(own),
				"/checks/0/method");
		refused.forEach((check, pointer) -> {
			Api.Reply reply = api.put(path,
					"{\"address\":\"127.0.0.1\",\"port\":%d,\"checks\":[%s]}".formatted(own, check));
			assertThat(reply.status()).as(check).isEqualTo(422);
			assertThat(reply.json().path("errors").get(0).path("pointer").stringValue()).as(check).isEqualTo(pointer);
		});
		Api.Reply metadata = api.put(path,
				"{\"address\":\"169.254.169.254\",\"port\":80,\"checks\":[{\"http\":\"http://169.254.169.254/latest/meta-data/\",\"intervalSeconds\":5}]}");
		assertThat(metadata.status()).isEqualTo(422);
		assertThat(metadata.json().path("errors").get(0).path("detail").stringValue()).contains("link-local");
		assertThat(api.get(path).status()).isEqualTo(404);
		assertThat(jdbc.sql("SELECT count(*) FROM health_check WHERE service = ?")
			.param(service)
			.query(Long.class)
			.single()).isZero();
	}

	@Test
	void consulClientsRegisterAnHttpCheckWithoutALease() {
		Api api = consul();
		String service = Names.service("consulhttp");
		TestTargets.Answering target = targets.answering(200);
		Api.Reply reply = api.put("/v1/agent/service/register", """
				{"Name":"%s","ID":"%s-1","Address":"127.0.0.1","Port":%d,
				 "Check":{"HTTP":"http://127.0.0.1:%d/health","Interval":"1s","Timeout":"300ms",
				          "DeregisterCriticalServiceAfter":"90m"}}""".formatted(service, service, target.port(),
				target.port()));
		assertThat(reply.status()).isEqualTo(200);
		Awaitility.await().atMost(VERDICT).pollInterval(Duration.ofMillis(200)).until(() -> target.hits().get() > 0);
		JsonNode check = api.get("/v1/health/checks/" + service).json().get(0);
		assertThat(check.path("CheckID").stringValue()).isEqualTo("service:" + service + "-1");
		assertThat(check.path("Type").stringValue()).isEqualTo("http");
		assertThat(check.path("Status").stringValue()).isEqualTo("passing");
		target.answer(500);
		Awaitility.await().atMost(VERDICT).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
			JsonNode now = api.get("/v1/health/checks/" + service).json().get(0);
			assertThat(now.path("Status").stringValue()).isEqualTo("critical");
			assertThat(now.path("Output").stringValue()).contains(": 500");
		});
		Api.Reply hostile = api.put("/v1/agent/service/register", """
				{"Name":"%s","ID":"x","Address":"127.0.0.1","Port":%d,
				 "Check":{"HTTP":"http://127.0.0.1:%d/health","Interval":"1ns"}}""".formatted(service, target.port(),
				target.port()));
		assertThat(hostile.status()).isEqualTo(400);
		assertThat(hostile.body()).contains("Check.Interval");
	}

	@Test
	void aTargetThatAnswersANulByteStillTurnsItsInstanceCritical() {
		Api api = Api.on(port);
		String service = Names.service("nul");
		int nul = targets.answering(500, "broken\u0000here").port();
		int other = targets.answering(200).port();
		register(api, service, "nul", nul, http(nul));
		register(api, service, "ok", other, http(other));
		Awaitility.await()
			.atMost(VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> instances(api, service).get("nul").path("health").stringValue().equals("CRITICAL"));
		assertThat(output(consul(), service, "nul")).endsWith(": 500 Output: broken\uFFFDhere");
		assertThat(audited(service, "instance.probe-fail")).isEqualTo(1);
	}

	@Test
	void aTricklingTargetHoldsOneConnectionOfItsCheckAtATimeForNoLongerThanTheTimeout() {
		Api api = Api.on(port);
		String service = Names.service("trickled");
		TestTargets.Trickling trickling = targets.tlsTrickling();
		int other = targets.answering(200).port();
		register(api, service, "slow", trickling.port(),
				"{\"http\":\"https://127.0.0.1:%d/health\",\"tlsSkipVerify\":true,\"intervalSeconds\":2,\"timeoutMillis\":1000}"
					.formatted(trickling.port()));
		register(api, service, "ok", other, http(other));
		// A byte every 0.7 s: each read of the handshake sees progress within the 1 s.
		Awaitility.await()
			.atMost(VERDICT.plusSeconds(5))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> trickling.accepted().get() >= 4);
		assertThat(trickling.mostOpen().get()).as("probes of one check never overlap").isEqualTo(1);
		assertThat(trickling.lifetimes()).as("each cut at the 1 s timeout").allMatch(millis -> millis < 1700);
		assertThat(instances(api, service).get("slow").path("health").stringValue()).isEqualTo("CRITICAL");
	}

	@Test
	void deletingAServiceCutsItsProbesInFlightAtOnce() {
		Api api = Api.on(port);
		String service = Names.service("cut");
		TestTargets.Trickling silent = targets.silent();
		for (String id : new String[] { "a", "b", "c", "d" }) {
			register(api, service, id, silent.port(),
					"{\"http\":\"http://127.0.0.1:%d/health\",\"intervalSeconds\":10,\"timeoutMillis\":9000}"
						.formatted(silent.port()));
		}
		Awaitility.await()
			.atMost(Duration.ofSeconds(25))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> silent.open().get() >= 3);
		assertThat(api.delete("/v1/services/%s?force=true".formatted(service)).status()).isBetween(200, 299);
		long deleted = System.nanoTime();
		Awaitility.await()
			.atMost(Duration.ofSeconds(3))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> silent.open().get() == 0);
		System.out.printf("probes of the deleted service cut after %d ms%n", (System.nanoTime() - deleted) / 1_000_000);
	}

	@Test
	void refusesChecksAimedAtTheRegistrysOwnPortOrItsDatabase() {
		Api api = Api.on(port);
		String service = Names.service("aim");
		String path = "/v1/services/%s/instances/x".formatted(service);
		Api.Reply self = api.put(path,
				"{\"address\":\"127.0.0.1\",\"port\":%d,\"checks\":[{\"http\":\"http://127.0.0.1:%d/v1/tokens\",\"intervalSeconds\":5}]}"
					.formatted(port, port));
		assertThat(self.status()).as(self.body()).isEqualTo(422);
		assertThat(self.json().path("errors").get(0).path("pointer").stringValue()).isEqualTo("/checks/0/http");
		assertThat(self.json().path("errors").get(0).path("detail").stringValue()).contains("registry's own");
		java.util.regex.Matcher database = java.util.regex.Pattern.compile("//([^:/]+):(\\d+)/")
			.matcher(TestDatabase.server().url());
		assertThat(database.find()).isTrue();
		int databasePort = Integer.parseInt(database.group(2));
		Api.Reply db = api.put(path,
				"{\"address\":\"127.0.0.1\",\"port\":%d,\"checks\":[{\"tcp\":\"127.0.0.1:%d\",\"intervalSeconds\":5}]}"
					.formatted(databasePort, databasePort));
		assertThat(db.status()).as(db.body()).isEqualTo(422);
		assertThat(db.json().path("errors").get(0).path("pointer").stringValue()).isEqualTo("/checks/0/tcp");
		assertThat(db.json().path("errors").get(0).path("detail").stringValue()).contains("database");
		assertThat(api.get(path).status()).isEqualTo(404);
	}

	@Test
	void aCheckByHostNameIsResolvedAtEachProbeAndNotSentToTheRegistrysOwnPort() {
		Api api = Api.on(port);
		String service = Names.service("byname");
		int other = targets.answering(200).port();
		Api.Reply reply = api.put("/v1/services/%s/instances/self".formatted(service),
				"{\"address\":\"localhost\",\"port\":%d,\"checks\":[{\"http\":\"http://localhost:%d/v1/tokens\",\"intervalSeconds\":1,\"timeoutMillis\":300}]}"
					.formatted(port, port));
		assertThat(reply.status()).as("a name is resolved when probed, not when registered").isIn(200, 201);
		register(api, service, "ok", other, http(other));
		Awaitility.await().atMost(VERDICT).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
			JsonNode check = probed(consul(), service, "self");
			assertThat(check.path("Status").stringValue()).isEqualTo("critical");
			// Never sent: the registry would have answered the probe's GET with 401 (the
			// output of an answer ends ": <status>"); the port itself may hold "401".
			assertThat(check.path("Output").stringValue()).contains("registry's own").doesNotContain("/v1/tokens: 401");
		});
	}

	@Test
	void aProbedBodyIsShownOnlyToTokensThatMayWriteItsService() {
		Api api = Api.on(port);
		String service = Names.service("shown");
		int failing = targets.answering(500, "internal detail").port();
		int other = targets.answering(200).port();
		register(api, service, "bad", failing, http(failing));
		register(api, service, "ok", other, http(other));
		Awaitility.await()
			.atMost(VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> instances(api, service).get("bad").path("health").stringValue().equals("CRITICAL"));
		Api.Reply created = api.send("POST", "/v1/tokens", "{\"name\":\"%s\",\"role\":\"reader\"}".formatted(service),
				null);
		String reader = created.json().path("token").stringValue();
		assertThat(output(consul(), service, "bad")).endsWith(": 500 Output: internal detail");
		assertThat(output(consul().as(reader), service, "bad")).endsWith(": 500").doesNotContain("internal detail");
		JsonNode entry = consul().as(reader).get("/v1/health/service/" + service).json();
		assertThat(entry.toString()).doesNotContain("internal detail");
	}

	/** The output of the instance's probed check as {@code api}'s token reads it. */
	private static String output(Api api, String service, String id) {
		return probed(api, service, id).path("Output").stringValue();
	}

	/** The instance's check that Ballast runs, on Consul's {@code /v1/health/checks}. */
	private static JsonNode probed(Api api, String service, String id) {
		return api.get("/v1/health/checks/" + service)
			.json()
			.valueStream()
			.filter(each -> each.path("ServiceID").stringValue().equals(id)
					&& !each.path("Type").stringValue().equals("ttl"))
			.findFirst()
			.orElseThrow();
	}

	/** Consul's endpoints are outside Ballast's OpenAPI contract. */
	private Api consul() {
		return Api.unchecked(port);
	}

	private static void register(Api api, String service, String id, int port, String check) {
		Api.Reply reply = api.put("/v1/services/%s/instances/%s".formatted(service, id),
				"{\"address\":\"127.0.0.1\",\"port\":%d,\"checks\":[%s]}".formatted(port, check));
		assertThat(reply.status()).as(reply.body()).isIn(200, 201);
	}

	private static String http(int port) {
		return "{\"http\":\"http://127.0.0.1:%d/health\",\"intervalSeconds\":1,\"timeoutMillis\":300,\"failuresBeforeCritical\":2}"
			.formatted(port);
	}

	private static String tcp(int port) {
		return "{\"tcp\":\"127.0.0.1:%d\",\"intervalSeconds\":1,\"timeoutMillis\":300,\"failuresBeforeCritical\":2}"
			.formatted(port);
	}

	static Map<String, JsonNode> instances(Api api, String service) {
		Map<String, JsonNode> byId = new HashMap<>();
		api.get("/v1/services/%s/instances".formatted(service))
			.json()
			.path("instances")
			.forEach(instance -> byId.put(instance.path("id").stringValue(), instance));
		return byId;
	}

	private long audited(String service, String action) {
		return jdbc.sql("SELECT count(*) FROM audit_event WHERE service = ? AND action = ?")
			.params(service, action)
			.query(Long.class)
			.single();
	}

}

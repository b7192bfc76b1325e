package dev.ballast.security;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.Names;
import dev.ballast.support.OtherNode;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@RegistryTest
class TokensTest {

	/** How late after its expiry a token's streams may end. */
	private static final Duration LATENESS = Duration.ofSeconds(1);

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Test
	void aTokenIsShownOnceAndKeptOnlyAsAHash() throws Exception {
		Api admin = Api.on(port);
		Api.Reply created = admin.send("POST", "/v1/tokens",
				"{\"name\":\"lb\",\"role\":\"reader\",\"expiresAt\":\"2099-01-01T00:00:00Z\"}", null);
		assertThat(created.status()).isEqualTo(201);
		String secret = created.json().get("token").asString();
		String id = created.json().get("id").asString();
		assertThat(created.header("Location")).hasValue("/v1/tokens/" + id);
		assertThat(created.json().get("role").asString()).isEqualTo("reader");
		assertThat(created.json().get("expiresAt").asString()).isEqualTo("2099-01-01T00:00:00Z");
		assertThat(secret).startsWith("blst_");
		// 32 random bytes in unpadded base64url.
		assertThat(secret.substring(5)).matches("[A-Za-z0-9_-]{43}");

		Api.Reply listed = admin.get("/v1/tokens");
		assertThat(listed.body()).contains(id).doesNotContain(secret);
		assertThat(listed.json()
			.valueStream()
			.filter(t -> t.get("id").asString().equals(id))
			.findFirst()
			.orElseThrow()
			.has("token")).isFalse();
		byte[] stored = jdbc.sql("SELECT secret_sha256 FROM token WHERE id = ?::uuid")
			.param(id)
			.query(byte[].class)
			.single();
		assertThat(HexFormat.of().formatHex(stored)).isEqualTo(HexFormat.of()
			.formatHex(java.security.MessageDigest.getInstance("SHA-256")
				.digest(secret.getBytes(java.nio.charset.StandardCharsets.US_ASCII))));
		assertThat(jdbc.sql("SELECT count(*) FROM token WHERE position(convert_to(?, 'UTF8') IN secret_sha256) > 0")
			.param(secret)
			.query(Long.class)
			.single()).isZero();
		assertThat(admin.as(secret).get("/v1/services").status()).isEqualTo(200);

		assertThat(jdbc.sql("SELECT token_name FROM audit_event WHERE action = 'token.create' AND after->>'id' = ?")
			.param(id)
			.query(String.class)
			.single()).isEqualTo("bootstrap admin");
		assertThat(jdbc.sql("SELECT count(*) FROM audit_event WHERE strpos(coalesce(after::text, ''), ?) > 0")
			.param(secret)
			.query(Long.class)
			.single()).as("the secret is never audited").isZero();
	}

	@Test
	void aTokenAsksWhoItIsAndGetsItsRoleAndScopeButNeverItsSecret() {
		Api admin = Api.on(port);
		String secret = admin
			.send("POST", "/v1/tokens", "{\"name\":\"self deploys\",\"role\":\"registrant\",\"services\":[\"pay-*\"]}",
					null)
			.json()
			.get("token")
			.asString();
		Api.Reply self = admin.as(secret).get("/v1/tokens/self");
		assertThat(self.status()).isEqualTo(200);
		assertThat(self.json().get("name").asString()).isEqualTo("self deploys");
		assertThat(self.json().get("role").asString()).isEqualTo("registrant");
		assertThat(self.json().get("services").get(0).asString()).isEqualTo("pay-*");
		assertThat(self.body()).doesNotContain(secret);
		assertThat(admin.get("/v1/tokens/self").json().get("role").asString()).isEqualTo("admin");
		assertThat(admin.as(null).get("/v1/tokens/self").status()).isEqualTo(401);
	}

	@Test
	void missingMalformedUnknownAndExpiredTokensAre401WithAChallenge() {
		Api anonymous = Api.on(port).as(null);
		Api.Reply none = anonymous.get("/v1/services");
		assertThat(none.status()).isEqualTo(401);
		assertThat(none.header("WWW-Authenticate")).hasValue("Bearer realm=\"ballast\"");
		assertThat(none.json().get("detail").asString()).contains("Authorization: Bearer <token>");

		Api.Reply basic = Api.on(port)
			.sendWith("GET", "/v1/services", null, Map.of("Authorization", "Basic YWRtaW46YWRtaW4="));
		assertThat(basic.status()).isEqualTo(401);
		assertThat(basic.json().get("detail").asString()).contains("Bearer <token>");

		Api.Reply unknown = Api.on(port).as("blst_not-a-token-anyone-ever-made-0000000000").get("/v1/services");
		assertThat(unknown.status()).isEqualTo(401);
		assertThat(unknown.header("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).contains("invalid_token"));

		Api admin = Api.on(port);
		String soon = Instant.now().plusSeconds(2).toString();
		String secret = admin
			.send("POST", "/v1/tokens", "{\"name\":\"brief\",\"role\":\"reader\",\"expiresAt\":\"" + soon + "\"}", null)
			.json()
			.get("token")
			.asString();
		assertThat(admin.as(secret).get("/v1/services").status()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> admin.as(secret).get("/v1/services").status() == 401);
	}

	@Test
	void forbiddenCallsSayWhatTheyNeed() {
		Api admin = Api.on(port);
		String reader = create(admin, "{\"name\":\"dashboards\",\"role\":\"reader\"}");
		Api.Reply refused = admin.as(reader).patch("/v1/services/" + Names.service("f"), "{\"defaultWeight\":5}");
		assertThat(refused.status()).isEqualTo(403);
		assertThat(refused.contentType()).hasValue("application/problem+json");
		assertThat(refused.json().get("detail").asString()).contains("\"dashboards\" (reader)")
			.contains("an operator or admin token");
	}

	@Test
	void aDeletedTokenStopsWorkingOnEveryNodeAtOnce() {
		Api admin = Api.on(port);
		Api.Reply created = admin.send("POST", "/v1/tokens",
				"{\"name\":\"leaver\",\"role\":\"registrant\",\"services\":[\"leaver-*\"]}", null);
		String secret = created.json().get("token").asString();
		try (OtherNode other = OtherNode.start()) {
			Api there = Api.on(other.port()).as(secret);
			String path = "/v1/services/%s/instances/a".formatted(Names.service("leaver"));
			assertThat(there.put(path, Registration.at("h", 1)).status()).isEqualTo(201);

			assertThat(admin.delete("/v1/tokens/" + created.json().get("id").asString()).status()).isEqualTo(204);

			assertThat(Api.on(port).as(secret).get(path).status()).as("on the node that deleted it").isEqualTo(401);
			long deleted = System.nanoTime();
			await().atMost(Duration.ofSeconds(2))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> there.get(path).status() == 401);
			System.out.printf("token deletion took effect on the other node after %d ms%n",
					(System.nanoTime() - deleted) / 1_000_000);
			assertThat(admin.delete("/v1/tokens/" + created.json().get("id").asString()).status()).isEqualTo(404);
			assertThat(jdbc.sql("SELECT count(*) FROM audit_event WHERE action = 'token.delete' AND before->>'id' = ?")
				.param(created.json().get("id").asString())
				.query(Long.class)
				.single()).isOne();
		}
	}

	@Test
	void streamsOpenedWithADeletedTokenEndOnEveryNode() {
		Api admin = Api.on(port);
		Api.Reply created = admin.send("POST", "/v1/tokens", "{\"name\":\"edge\",\"role\":\"reader\"}", null);
		String secret = created.json().get("token").asString();
		String service = Names.service("revoked");
		admin.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 1));
		String path = "/v1/services/%s/watch".formatted(service);
		try (OtherNode other = OtherNode.start();
				EventStream here = EventStream.open(port, path, null, secret);
				EventStream there = EventStream.open(other.port(), path, null, secret);
				EventStream unaffected = EventStream.open(port, path, null)) {
			assertThat(here.nextEvent(Duration.ofSeconds(10)).name()).isEqualTo("snapshot");
			assertThat(there.nextEvent(Duration.ofSeconds(10)).name()).isEqualTo("snapshot");
			assertThat(unaffected.nextEvent(Duration.ofSeconds(10)).name()).isEqualTo("snapshot");

			assertThat(admin.delete("/v1/tokens/" + created.json().get("id").asString()).status()).isEqualTo(204);

			for (EventStream stream : java.util.List.of(here, there)) {
				EventStream.Event last = stream.nextEvent(Duration.ofSeconds(5));
				assertThat(last.name()).isEqualTo("reconnect");
				assertThat(last.json().get("reason").asString()).isEqualTo("token-revoked");
			}
			admin.patch("/v1/services/%s/instances/a".formatted(service), "{\"weight\":7}");
			assertThat(unaffected.nextEvent(Duration.ofSeconds(5)).name()).as("other tokens' streams go on")
				.isEqualTo("upsert");
		}
		assertThat(Api.on(port).as(secret).get(path).status()).isEqualTo(401);
	}

	@Test
	void streamsOpenedWithATokenEndAtItsExpiry() throws Exception {
		Api admin = Api.on(port);
		String service = Names.service("expiring");
		admin.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 1));
		String path = "/v1/services/%s/watch".formatted(service);
		Instant expiresAt = Instant.now().plusSeconds(4);
		String secret = create(admin,
				"{\"name\":\"brief-edge\",\"role\":\"reader\",\"expiresAt\":\"" + expiresAt + "\"}");
		int streams = 4;
		CyclicBarrier start = new CyclicBarrier(streams);
		ExecutorService openers = Executors.newFixedThreadPool(streams);
		List<Future<EventStream>> opening = new ArrayList<>();
		for (int i = 0; i < streams; i++) {
			opening.add(openers.submit(() -> {
				start.await(10, TimeUnit.SECONDS);
				return EventStream.open(port, path, null, secret);
			}));
		}
		List<EventStream> opened = new ArrayList<>();
		try (EventStream unaffected = EventStream.open(port, path, null)) {
			for (Future<EventStream> stream : opening) {
				opened.add(stream.get(20, TimeUnit.SECONDS));
			}
			for (EventStream stream : opened) {
				assertThat(stream.nextEvent(Duration.ofSeconds(10)).name()).isEqualTo("snapshot");
			}
			assertThat(unaffected.nextEvent(Duration.ofSeconds(10)).name()).isEqualTo("snapshot");

			for (EventStream stream : opened) {
				EventStream.Event last = stream
					.nextEvent(Duration.between(Instant.now(), expiresAt).plus(LATENESS).plusSeconds(1));
				Instant ended = Instant.now();
				assertThat(last.name()).isEqualTo("reconnect");
				assertThat(last.json().get("reason").asString()).isEqualTo("token-revoked");
				assertThat(ended).as("ends at the expiry, not before and at most %s after it", LATENESS)
					.isBetween(expiresAt, expiresAt.plus(LATENESS));
			}
			admin.patch("/v1/services/%s/instances/a".formatted(service), "{\"weight\":7}");
			assertThat(unaffected.nextEvent(Duration.ofSeconds(5)).name()).as("other tokens' streams go on")
				.isEqualTo("upsert");
		}
		finally {
			opened.forEach(EventStream::close);
			openers.shutdownNow();
		}
		assertThat(Api.on(port).as(secret).get(path).status()).isEqualTo(401);
	}

	@Test
	void tokenRequestsAreCheckedFieldByField() {
		Api admin = Api.on(port);
		assertThat(pointer(admin.send("POST", "/v1/tokens", "{\"name\":\"x\",\"role\":\"root\"}", null)))
			.isEqualTo("/role");
		assertThat(pointer(admin.send("POST", "/v1/tokens", "{\"name\":\"x\",\"role\":\"registrant\"}", null)))
			.isEqualTo("/services");
		assertThat(pointer(admin.send("POST", "/v1/tokens",
				"{\"name\":\"x\",\"role\":\"operator\",\"services\":[\"payments-*\"]}", null)))
			.isEqualTo("/services");
		assertThat(pointer(admin.send("POST", "/v1/tokens",
				"{\"name\":\"x\",\"role\":\"reader\",\"services\":[\"Payments.*\"]}", null)))
			.isEqualTo("/services");
		assertThat(pointer(admin.send("POST", "/v1/tokens",
				"{\"name\":\"x\",\"role\":\"registrant\",\"services\":[\"Payments.*\"]}", null)))
			.isEqualTo("/services");
		assertThat(pointer(admin.send("POST", "/v1/tokens",
				"{\"name\":\"x\",\"role\":\"reader\",\"expiresAt\":\"2001-01-01T00:00:00Z\"}", null)))
			.isEqualTo("/expiresAt");
		assertThat(pointer(admin.send("POST", "/v1/tokens",
				"{\"name\":\"x\",\"role\":\"reader\",\"writesPerSecond\":\"5\"}", null)))
			.isEqualTo("/writesPerSecond");
		assertThat(
				pointer(admin.send("POST", "/v1/tokens", "{\"name\":\"x\",\"role\":\"reader\",\"admin\":true}", null)))
			.isEqualTo("/admin");
		assertThat(admin.delete("/v1/tokens/not-a-uuid").status()).isEqualTo(404);
	}

	@Test
	void theLastAdminTokenCannotBeDeleted() {
		Api admin = Api.on(port);
		long admins = jdbc.sql("SELECT count(*) FROM token WHERE role = 'admin'").query(Long.class).single();
		// Other tests in this context may have made admins; delete them all but this one.
		String own = jdbc.sql("SELECT id::text FROM token WHERE name = 'bootstrap admin'").query(String.class).single();
		for (String id : jdbc.sql("SELECT id::text FROM token WHERE role = 'admin' AND id::text <> ?")
			.param(own)
			.query(String.class)
			.list()) {
			admin.delete("/v1/tokens/" + id);
		}
		assertThat(admins).isPositive();
		Api.Reply refused = admin.delete("/v1/tokens/" + own);
		assertThat(refused.status()).isEqualTo(409);
		assertThat(refused.json().get("detail").asString()).contains("last admin token");
		assertThat(admin.get("/v1/tokens").status()).isEqualTo(200);
	}

	@Test
	void writesPastATokensRateAre429WithAJitteredRetryAfterAndWriteNothing() {
		Api admin = Api.on(port);
		String service = Names.service("limited");
		Api limited = admin.as(create(admin, "{\"name\":\"slow\",\"role\":\"registrant\",\"services\":[\"" + service
				+ "\"],\"writesPerSecond\":5}"));
		String path = "/v1/services/%s/instances/a".formatted(service);
		int refused = 0;
		Api.Reply last = null;
		for (int i = 0; i < 20; i++) {
			Api.Reply reply = limited.put(path, Registration.at("h", 1000 + i));
			if (reply.status() == 429) {
				refused++;
				last = reply;
			}
			else {
				assertThat(reply.status()).isIn(200, 201);
			}
		}
		assertThat(refused).as("20 writes at once against 5 per second").isGreaterThanOrEqualTo(10);
		assertThat(last.header("Retry-After")).hasValueSatisfying(v -> assertThat(Integer.parseInt(v)).isBetween(1, 2));
		assertThat(last.json().get("detail").asString()).contains("5 writes per second");
		JsonNode stored = admin.get(path).json();
		int port = stored.get("port").asInt();
		assertThat(port).as("the last accepted write, not a refused one").isLessThan(1000 + 20);
		assertThat(limited.get(path).status()).as("reads are not limited").isEqualTo(200);
		for (int i = 0; i < 20; i++) {
			assertThat(limited.get(path).status()).isEqualTo(200);
		}
	}

	private static String pointer(Api.Reply reply) {
		assertThat(reply.status()).isEqualTo(422);
		return reply.json().get("errors").get(0).get("pointer").asString();
	}

	private static String create(Api admin, String body) {
		Api.Reply reply = admin.send("POST", "/v1/tokens", body, null);
		assertThat(reply.status()).isEqualTo(201);
		return reply.json().get("token").asString();
	}

}

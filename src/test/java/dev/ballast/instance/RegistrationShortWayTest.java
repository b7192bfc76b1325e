package dev.ballast.instance;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import dev.ballast.support.RowHolder;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registration's short way answers exactly as the full way does, audits the same
 * caller and request, and leaves everything else, refusals included, to the full way.
 */
@RegistryTest
class RegistrationShortWayTest {

	/**
	 * Set per answer, so never equal between two answers; and the body's framing, which
	 * is HTTP's business, not the answer's (the short way knows its length, Spring MVC
	 * streams chunked).
	 */
	private static final Set<String> PER_ANSWER = Set.of("date", "x-request-id", "etag", "content-length",
			"transfer-encoding");

	/** An Accept the short way leaves to Spring MVC. */
	private static final Map<String, String> FULL_WAY = Map.of("Accept", "application/json;q=0.9");

	@LocalServerPort
	int port;

	@Autowired
	RegistrationShortWay shortWay;

	@Autowired
	JdbcClient jdbc;

	@Autowired
	TransactionTemplate transactions;

	Api admin;

	String service;

	@BeforeEach
	void service() {
		admin = Api.on(port);
		service = Names.service("reg");
	}

	@Test
	void answersWithTheStatusHeadersAndBodyOfTheFullWay() {
		String body = Registration.at("10.0.0.1", 80).weight(70).zone("az-1").metadata("version", "2").json();
		Api.Reply shortCreate = admin.send("PUT", path("a"), body, null);
		Api.Reply fullCreate = admin.sendWith("PUT", path("b"), body, FULL_WAY);
		Api.Reply shortReplace = admin.send("PUT", path("b"), body.replace("70", "60"), null);
		Api.Reply fullReplace = admin.sendWith("PUT", path("a"), body.replace("70", "60"), FULL_WAY);

		assertThat(shortCreate.status()).isEqualTo(201);
		assertThat(fullCreate.status()).isEqualTo(201);
		assertThat(shortReplace.status()).isEqualTo(200);
		assertThat(fullReplace.status()).isEqualTo(200);
		assertThat(headers(shortCreate)).isEqualTo(headers(fullCreate));
		assertThat(headers(shortReplace)).isEqualTo(headers(fullReplace));
		for (Api.Reply reply : new Api.Reply[] { shortCreate, fullCreate, shortReplace, fullReplace }) {
			assertThat(reply.header("X-Request-Id")).isPresent();
			assertThat(reply.header("ETag")).contains("\"" + reply.json().get("revision").asLong() + "\"");
		}
		assertThat(withoutIds(shortCreate.json())).isEqualTo(withoutIds(fullCreate.json()));
		assertThat(withoutIds(shortReplace.json())).isEqualTo(withoutIds(fullReplace.json()));
		assertThat(shortReplace.json().get("weight").isInt()).isTrue();
		assertThat(shortReplace.json().get("weight").intValue()).isEqualTo(60);
	}

	@Test
	void answersAnAdmittedRegistrationItselfAndAuditsItsCallerAndRequest() throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();

		assertThat(shortWay.answer(put(path("a"), Registration.at("10.0.0.1", 80).weight(70).json()), response))
			.as("the request passed on to the full way")
			.isNull();
		assertThat(response.getStatus()).isEqualTo(HttpServletResponse.SC_CREATED);
		assertThat(response.getContentAsString()).contains("\"weight\":70");
		assertThat(response.getHeader("X-Content-Type-Options")).isEqualTo("nosniff");

		Api.Reply overHttp = admin.send("PUT", path("a"), Registration.at("10.0.0.1", 80).weight(50).json(), null);
		assertThat(overHttp.status()).isEqualTo(200);
		Map<String, Object> audited = jdbc
			.sql("SELECT token_name, request_id FROM audit_event WHERE service = ? AND action = 'instance.replace'")
			.param(service)
			.query()
			.singleRow();
		assertThat(audited.get("token_name")).isNotNull();
		assertThat(audited.get("request_id")).isEqualTo(overHttp.header("X-Request-Id").orElseThrow());
	}

	@Test
	void refusalsAreTheFullWaysAndWriteNothing() {
		assertThat(admin.put(path("a"), Registration.at("10.0.0.1", 80).weight(100)).status()).isEqualTo(201);
		// b out of rotation, so that a at 0 would be a second instance out: refused.
		assertThat(admin.put(path("b"), Registration.at("10.0.0.2", 80).weight(100)).status()).isEqualTo(201);
		assertThat(admin.put(path("b"), Registration.at("10.0.0.2", 80).weight(0)).status()).isEqualTo(200);
		long revision = revision();

		Api.Reply stringWeight = admin.send("PUT", path("a"), "{\"address\":\"10.0.0.1\",\"port\":80,\"weight\":\"0\"}",
				null);
		Api.Reply unknownField = admin.send("PUT", path("a"), "{\"address\":\"10.0.0.1\",\"port\":80,\"wieght\":1}",
				null);
		Api.Reply guarded = admin.put(path("a"), Registration.at("10.0.0.1", 80).weight(0));

		assertThat(stringWeight.status()).isEqualTo(422);
		assertThat(stringWeight.contentType()).contains("application/problem+json");
		assertThat(stringWeight.body()).contains("/weight");
		assertThat(unknownField.status()).isIn(400, 422);
		assertThat(guarded.status()).isEqualTo(409);
		assertThat(guarded.contentType()).contains("application/problem+json");
		assertThat(revision()).isEqualTo(revision);
	}

	/**
	 * A write the database refuses for a lock timeout is answered on the short way as the
	 * full way answers it, after one lock_timeout: not sent the full way, where it would
	 * wait for the held row a second time.
	 */
	@Test
	void aLockTimeoutIsAnsweredAsTheFullWayAnswersItAfterOneWait() throws Exception {
		String body = Registration.at("10.0.0.1", 80).weight(100).json();
		assertThat(admin.send("PUT", path("a"), body, null).status()).isEqualTo(201);
		long revision = revision();
		long lockTimeoutMillis = jdbc
			.sql("SELECT (extract(epoch FROM current_setting('lock_timeout')::interval) * 1000)::bigint")
			.query(Long.class)
			.single();
		String changed = body.replace("100", "90");

		Api.Reply shortWay;
		Api.Reply fullWay;
		long tookMillis;
		try (RowHolder holder = RowHolder.hold(transactions, jdbc, service)) {
			long started = System.nanoTime();
			shortWay = admin.send("PUT", path("a"), changed, null);
			tookMillis = (System.nanoTime() - started) / 1_000_000;
			fullWay = admin.sendWith("PUT", path("a"), changed, FULL_WAY);
		}

		assertThat(shortWay.status()).as(shortWay.body()).isEqualTo(503);
		assertThat(fullWay.status()).as(fullWay.body()).isEqualTo(503);
		assertThat(shortWay.json().get("type").stringValue())
			.isEqualTo("https://ballast.dev/problems/database-timeout");
		assertThat(withoutIds(shortWay.json())).isEqualTo(withoutIds(fullWay.json()));
		Map<String, String> shortHeaders = headers(shortWay);
		Map<String, String> fullHeaders = headers(fullWay);
		for (Map<String, String> headers : List.of(shortHeaders, fullHeaders)) {
			assertThat(Integer.parseInt(headers.remove("retry-after"))).isBetween(1, 3);
		}
		assertThat(shortHeaders).isEqualTo(fullHeaders);
		assertThat(tookMillis).as("one lock_timeout (%d ms), not two", lockTimeoutMillis)
			.isBetween(lockTimeoutMillis * 8 / 10, lockTimeoutMillis * 17 / 10);
		assertThat(revision()).isEqualTo(revision);
	}

	@Test
	void leavesEverythingElseToTheFullWay() throws Exception {
		String body = Registration.at("10.0.0.1", 80).json();
		MockHttpServletRequest noToken = put(path("a"), body);
		noToken.removeHeader("Authorization");
		assertPassedOn(noToken);
		MockHttpServletRequest query = put(path("a"), body);
		query.setQueryString("x=1");
		assertPassedOn(query);
		MockHttpServletRequest keyed = put(path("a"), body);
		keyed.addHeader("Idempotency-Key", "k1");
		assertPassedOn(keyed);
		MockHttpServletRequest xml = put(path("a"), body);
		xml.addHeader("Accept", "application/xml");
		assertPassedOn(xml);
		MockHttpServletRequest text = put(path("a"), body);
		text.setContentType("text/plain");
		assertPassedOn(text);
		assertPassedOn(put(path("a") + "/heartbeat", body));
		assertPassedOn(put(path("a%2Fb"), body));
		assertPassedOn(put(path("a"), "{\"address\":\"10.0.0.1\",\"port\":80,\"weight\":\"0\"}"));
		assertPassedOn(put(path("a"), "[1]"));
		assertThat(
				jdbc.sql("SELECT count(*) FROM instance WHERE service = ?").param(service).query(Long.class).single())
			.isZero();
	}

	private void assertPassedOn(MockHttpServletRequest request) throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();
		HttpServletRequest fullWay = shortWay.answer(request, response);
		assertThat(fullWay)
			.as("%s %s?%s passed on", request.getMethod(), request.getRequestURI(), request.getQueryString())
			.isNotNull();
		assertThat(fullWay.getInputStream().readAllBytes()).as("with its body")
			.isEqualTo(request.getContentAsByteArray());
		assertThat(response.getContentLength()).as("nothing answered").isZero();
	}

	private static MockHttpServletRequest put(String uri, String body) {
		MockHttpServletRequest request = new MockHttpServletRequest("PUT", uri);
		request.addHeader("Authorization", Admin.HEADER);
		request.setContentType("application/json");
		request.setContent(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
		return request;
	}

	private String path(String id) {
		return "/v1/services/%s/instances/%s".formatted(service, id);
	}

	private long revision() {
		return jdbc.sql("SELECT revision FROM service WHERE name = ?").param(service).query(Long.class).single();
	}

	private static Map<String, String> withoutIds(JsonNode instance) {
		Map<String, String> fields = new TreeMap<>();
		instance.properties().forEach(field -> fields.put(field.getKey(), field.getValue().toString()));
		fields.keySet().removeAll(Set.of("id", "revision", "leaseExpiresAt", "lastRenewedAt", "registeredAt"));
		return fields;
	}

	private static Map<String, String> headers(Api.Reply reply) {
		Map<String, String> headers = new TreeMap<>();
		reply.response().headers().map().forEach((name, values) -> {
			if (!PER_ANSWER.contains(name.toLowerCase())) {
				headers.put(name.toLowerCase(), String.join(",", values));
			}
		});
		return headers;
	}

}

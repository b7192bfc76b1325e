package dev.ballast.lease;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.ballast.registry.Audit;
import dev.ballast.registry.Guard;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.WritePath;
import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The heartbeat's short way answers exactly as the full way does, and only where the full
 * way would have nothing else to decide; everything else goes the full way.
 */
@RegistryTest
class HeartbeatShortWayTest {

	/** Set per answer, so never equal between two answers. */
	private static final Set<String> PER_ANSWER = Set.of("date", "x-request-id");

	@LocalServerPort
	int port;

	@Autowired
	HeartbeatShortWay shortWay;

	@Autowired
	WritePath writes;

	@Autowired
	PlatformTransactionManager transactions;

	Api admin;

	String service;

	@BeforeEach
	void register() {
		admin = Api.on(port);
		service = Names.service("beat");
		assertThat(admin.put(path("a"), Registration.at("10.0.0.1", 80).weight(70)).status()).isEqualTo(201);
	}

	private void removeA() {
		LockedService locked = writes.lock(ServiceName.of(service));
		locked.changes(Guard.none())
			.remove(locked.instance(InstanceId.of("a")))
			.commit(Audit.none("a test's removal, to see the cache follow it"));
	}

	private String path(String id) {
		return "/v1/services/%s/instances/%s".formatted(service, id);
	}

	@Test
	void answersWithTheStatusHeadersAndBodyOfTheFullWay() {
		Api.Reply shortWay = admin.send("POST", path("a") + "/heartbeat", null, null);
		// An Accept the short way leaves to Spring MVC: the same heartbeat the full way.
		Api.Reply fullWay = admin.sendWith("POST", path("a") + "/heartbeat", null,
				Map.of("Accept", "application/json;q=0.9"));

		assertThat(shortWay.status()).isEqualTo(200);
		assertThat(fullWay.status()).isEqualTo(200);
		assertThat(headers(shortWay)).isEqualTo(headers(fullWay));
		assertThat(shortWay.response().headers().firstValue("X-Request-Id")).isPresent();
		assertThat(shortWay.json().properties().stream().map(Map.Entry::getKey).toList())
			.containsExactlyElementsOf(fullWay.json().properties().stream().map(Map.Entry::getKey).toList());
		assertThat(shortWay.json().get("mode")).isEqualTo(fullWay.json().get("mode"));
		assertThat(shortWay.json().get("effectiveWeight").isInt()).isTrue();
		assertThat(shortWay.json().get("effectiveWeight")).isEqualTo(fullWay.json().get("effectiveWeight"));
		Instant shortExpiry = Instant.parse(shortWay.json().get("leaseExpiresAt").asString());
		Instant fullExpiry = Instant.parse(fullWay.json().get("leaseExpiresAt").asString());
		assertThat(Duration.between(shortExpiry, fullExpiry).abs()).isLessThan(Duration.ofSeconds(10));
	}

	@Test
	void answersACachedInstanceOfAnAdmittedCallerItself() throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();

		assertThat(shortWay.answer(heartbeat(path("a") + "/heartbeat"), response)).as("answered").isNull();

		assertThat(response.getStatus()).isEqualTo(HttpServletResponse.SC_OK);
		assertThat(response.getContentAsString()).contains("\"effectiveWeight\":70");
		assertThat(response.getHeader("X-Content-Type-Options")).isEqualTo("nosniff");
	}

	/**
	 * The cache the short way answers from follows this node's changes once they commit,
	 * and never a change that rolls back. The removal goes through the write path: a
	 * change logged alone would commit a revision the service's counter never spent, and
	 * the next write of the service (the sweep's, in this shared database) would collide
	 * with it.
	 */
	@Test
	void theCacheTakesAChangeOnlyOnceItCommits() throws Exception {
		TransactionTemplate transaction = new TransactionTemplate(transactions);

		transaction.executeWithoutResult(status -> {
			removeA();
			status.setRollbackOnly();
		});
		assertThat(shortWay.answer(heartbeat(path("a") + "/heartbeat"), new MockHttpServletResponse()))
			.as("answered from the cache after a removal that rolled back")
			.isNull();

		boolean answeredBeforeCommit = transaction.execute(status -> {
			removeA();
			try {
				return shortWay.answer(heartbeat(path("a") + "/heartbeat"), new MockHttpServletResponse()) == null;
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		});
		assertThat(answeredBeforeCommit).as("answered from the cache before the removal commits").isTrue();
		assertPassedOn(heartbeat(path("a") + "/heartbeat"));
	}

	@Test
	void leavesEverythingElseToTheFullWay() throws Exception {
		assertPassedOn(heartbeat(path("unknown") + "/heartbeat"));
		assertPassedOn(heartbeat("/v1/services/%s/instances/a/heartbeat".formatted(Names.service("none"))));
		MockHttpServletRequest noToken = heartbeat(path("a") + "/heartbeat");
		noToken.removeHeader("Authorization");
		assertPassedOn(noToken);
		MockHttpServletRequest unknownToken = heartbeat(path("a") + "/heartbeat");
		unknownToken.removeHeader("Authorization");
		unknownToken.addHeader("Authorization", "Bearer blst_not-a-token");
		assertPassedOn(unknownToken);
		MockHttpServletRequest query = heartbeat(path("a") + "/heartbeat");
		query.setQueryString("x=1");
		assertPassedOn(query);
		MockHttpServletRequest keyed = heartbeat(path("a") + "/heartbeat");
		keyed.addHeader("Idempotency-Key", "k1");
		assertPassedOn(keyed);
		MockHttpServletRequest withBody = heartbeat(path("a") + "/heartbeat");
		withBody.setContent("{}".getBytes());
		assertPassedOn(withBody);
		MockHttpServletRequest xml = heartbeat(path("a") + "/heartbeat");
		xml.addHeader("Accept", "application/xml");
		assertPassedOn(xml);
		MockHttpServletRequest get = heartbeat(path("a") + "/heartbeat");
		get.setMethod("GET");
		assertPassedOn(get);
		assertPassedOn(heartbeat(path("a%2Fb") + "/heartbeat"));
	}

	@Test
	void aRegistrantOutsideItsScopeOrPastItsLimitIsRefusedByTheFullWay() {
		String other = Names.service("beat-other");
		String scoped = create(
				"{\"name\":\"beat\",\"role\":\"registrant\",\"services\":[\"" + other + "\"],\"writesPerSecond\":2}");
		assertThat(
				admin.as(scoped).put("/v1/services/%s/instances/b".formatted(other), Registration.at("h", 1)).status())
			.isEqualTo(201);

		assertThat(admin.as(scoped).send("POST", path("a") + "/heartbeat", null, null).status())
			.as("a heartbeat outside the token's scope")
			.isEqualTo(403);
		int refused = 0;
		for (int i = 0; i < 10; i++) {
			int status = admin.as(scoped)
				.send("POST", "/v1/services/%s/instances/b/heartbeat".formatted(other), null, null)
				.status();
			assertThat(status).isIn(200, 429);
			refused += status == 429 ? 1 : 0;
		}
		assertThat(refused).as("10 heartbeats at once against 2 writes per second").isGreaterThanOrEqualTo(5);
	}

	private void assertPassedOn(MockHttpServletRequest request) throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();
		assertThat(shortWay.answer(request, response))
			.as("%s %s?%s passed on as it came", request.getMethod(), request.getRequestURI(), request.getQueryString())
			.isSameAs(request);
		assertThat(response.getContentLength()).as("nothing answered").isZero();
	}

	private static MockHttpServletRequest heartbeat(String uri) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", uri);
		request.addHeader("Authorization", Admin.HEADER);
		return request;
	}

	private String create(String body) {
		Api.Reply reply = admin.send("POST", "/v1/tokens", body, null);
		assertThat(reply.status()).isEqualTo(201);
		return reply.json().get("token").asString();
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

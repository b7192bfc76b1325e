package dev.ballast.instance;

import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Answers that say what is true: an unquoted If-Match is refused as what it is rather
 * than answered "changed since 2" about an instance at revision 2; a count budget is a
 * JSON integer; a service's first release is its release 1, whatever other services did.
 */
@RegistryTest
class PlainAnswersTest {

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Test
	void anUnquotedIfMatchIsRefusedWith400SayingToQuoteItAndChangesNothing() {
		Api api = Api.on(port);
		String service = Names.service("ifmatch");
		String path = "/v1/services/%s/instances/a".formatted(service);
		api.put(path, Registration.at("127.0.0.1", 9000).weight(100).leaseTtlSeconds(300));
		long revision = api.get(path).json().path("revision").longValue();

		for (String sent : List.of(Long.toString(revision), "\"%d".formatted(revision),
				"%d, \"%d\"".formatted(revision, revision), "W/" + revision)) {
			Api.Reply refused = api.patch(path, "{\"weight\":60}", sent);
			assertThat(refused.status()).as(sent).isEqualTo(400);
			JsonNode error = refused.json().path("errors").get(0);
			assertThat(error.path("pointer").stringValue()).isEqualTo("#If-Match");
			assertThat(error.path("detail").stringValue()).as(sent)
				.contains("quotes included", "\"%d\"".formatted(revision));
		}
		Api.Reply garbage = api.patch(path, "{\"weight\":60}", "**");
		assertThat(garbage.status()).isEqualTo(400);
		assertThat(garbage.json().path("detail").stringValue()).contains("quotes included", "got the header value **");
		assertThat(api.get(path).json().path("weight").intValue()).as("nothing was written").isEqualTo(100);
		assertThat(api.get(path).json().path("revision").longValue()).isEqualTo(revision);

		assertThat(api.patch(path, "{\"weight\":60}", "\"%d\"".formatted(revision)).status()).isEqualTo(200);
		Api.Reply stale = api.patch(path, "{\"weight\":70}", "\"%d\"".formatted(revision));
		assertThat(stale.status()).isEqualTo(412);
		assertThat(api.patch(path, "{\"weight\":70}", "\"1\", W/\"%d\"".formatted(revision + 1)).status())
			.as("a list, a weak tag among them")
			.isEqualTo(200);
		assertThat(api.patch(path, "{\"weight\":80}", "*").status()).isEqualTo(200);
	}

	@Test
	void aCountBudgetIsAJsonIntegerAndAPercentAString() {
		Api api = Api.on(port);
		String service = Names.service("budget");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("127.0.0.1", 9000).weight(100));
		String path = "/v1/services/" + service;

		Api.Reply count = api.patch(path, "{\"maxUnroutable\":2}");
		assertThat(count.status()).as(count.body()).isEqualTo(200);
		assertThat(count.json().path("maxUnroutable").stringValue()).isEqualTo("2");
		assertThat(api.patch(path, "{\"maxUnroutable\":\"30%\"}").json().path("maxUnroutable").stringValue())
			.isEqualTo("30%");
		assertThat(api.patch(path, "{\"maxUnroutable\":\"1\"}").json().path("maxUnroutable").stringValue())
			.as("a count as text, as earlier versions took it")
			.isEqualTo("1");
		assertThat(api.patch(path, "{\"maxUnroutable\":0}").json().path("maxUnroutable").stringValue()).isEqualTo("0");

		for (String sent : List.of("-1", "10001", "1.0", "1e0", "true", "[1]", "{}", "\"25\u00a0%\"", "\"101%\"",
				"\"ten\"", "9999999999999999999")) {
			Api.Reply refused = api.patch(path, "{\"maxUnroutable\":%s}".formatted(sent));
			assertThat(refused.status()).as(sent).isEqualTo(422);
			JsonNode error = refused.json().path("errors").get(0);
			assertThat(error.path("pointer").stringValue()).as(sent).isEqualTo("/maxUnroutable");
			assertThat(error.path("detail").stringValue()).as(sent)
				.startsWith("maxUnroutable must be a count of instances as a JSON integer such as 1");
		}
		assertThat(api.get(path).json().path("maxUnroutable").stringValue()).as("nothing refused was stored")
			.isEqualTo("0");
	}

	@Test
	void aServicesReleasesAreNumberedFromOneWhateverOtherServicesDid() throws Exception {
		Api api = Api.on(port);
		String first = blueGreen(api);
		String second = blueGreen(api);
		JsonNode a1 = start(api, first);
		abort(api, first, a1);
		JsonNode a2 = start(api, first);
		JsonNode b1 = start(api, second);
		assertThat(a1.path("id").longValue()).isEqualTo(1);
		assertThat(a2.path("id").longValue()).isEqualTo(2);
		assertThat(b1.path("id").longValue()).as("another service's releases do not count").isEqualTo(1);
		Api.Reply advanced = api.send("POST", "/v1/services/%s/releases/1/advance".formatted(second), null, null);
		assertThat(advanced.status()).as(advanced.body()).isEqualTo(200);
		assertThat(advanced.json().path("id").longValue()).isEqualTo(1);
		assertThat(api.get("/v1/services/%s/releases/1".formatted(first)).json().path("state").stringValue())
			.isEqualTo("ABORTED");
		List<Long> listed = new java.util.ArrayList<>();
		api.get("/v1/services/%s/releases".formatted(first)).json().forEach(r -> listed.add(r.path("id").longValue()));
		assertThat(listed).as("the list shows the ids the paths take, newest first").containsExactly(2L, 1L);
		JsonNode summary = null;
		for (JsonNode listedService : api.get("/v1/services").json()) {
			summary = listedService.path("name").stringValue().equals(first) ? listedService : summary;
		}
		assertThat(summary.path("releaseUnderWay").longValue()).isEqualTo(2);
		abort(api, first, a2);

		// Two services starting their first releases at once each get release 1.
		String third = blueGreen(api);
		String fourth = blueGreen(api);
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			CyclicBarrier barrier = new CyclicBarrier(2);
			List<Future<Api.Reply>> started = List.of(third, fourth).stream().map(service -> pool.submit(() -> {
				meet(barrier);
				return api.send("POST", "/v1/services/%s/releases".formatted(service), SHIFT, null);
			})).toList();
			for (Future<Api.Reply> reply : started) {
				assertThat(reply.get(30, TimeUnit.SECONDS).status()).isEqualTo(201);
				assertThat(reply.get().json().path("id").longValue()).isEqualTo(1);
			}
		}
		finally {
			pool.shutdownNow();
			assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(jdbc.sql("SELECT count(*) FROM release WHERE service IN (?, ?) AND number = 1")
			.params(third, fourth)
			.query(Long.class)
			.single()).isEqualTo(2);
	}

	private static final String SHIFT = "{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"green\"},\"steps\":[50,100]}";

	private static JsonNode start(Api api, String service) {
		Api.Reply started = api.send("POST", "/v1/services/%s/releases".formatted(service), SHIFT, null);
		assertThat(started.status()).as(started.body()).isEqualTo(201);
		return started.json();
	}

	private static void abort(Api api, String service, JsonNode release) {
		Api.Reply aborted = api.send("POST",
				"/v1/services/%s/releases/%d/abort".formatted(service, release.path("id").longValue()), null, null);
		assertThat(aborted.status()).as(aborted.body()).isEqualTo(200);
	}

	private static String blueGreen(Api api) {
		String service = Names.service("numbered");
		for (String id : List.of("b1", "b2")) {
			api.put("/v1/services/%s/instances/%s".formatted(service, id),
					Registration.at("h", 80).weight(100).metadata("color", "blue"));
		}
		for (String id : List.of("g1", "g2")) {
			api.put("/v1/services/%s/instances/%s".formatted(service, id),
					Registration.at("h", 81).weight(100).metadata("color", "green"));
		}
		return service;
	}

	private static void meet(CyclicBarrier barrier) {
		try {
			barrier.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException | BrokenBarrierException | TimeoutException ex) {
			throw new IllegalStateException("the two starts did not meet", ex);
		}
	}

}

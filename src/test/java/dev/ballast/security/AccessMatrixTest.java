package dev.ballast.security;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import dev.ballast.support.ServedEndpoints;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every endpoint, called by every kind of caller: no token, each role, a registrant
 * outside its scope, and readers scoped to the service or to others. Each call that is
 * allowed is made valid (on fresh state) and must succeed; each that is not must be 401
 * without a token and 403 with one. The table below is written independently of the
 * access rules, and must name every endpoint the application serves, so an endpoint added
 * without a decision here fails the build.
 */
@RegistryTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AccessMatrixTest {

	enum Caller {

		ANONYMOUS, READER, REGISTRANT, STRANGER, OPERATOR, ADMIN,
		/** A reader scoped to the fixture's services. */
		SCOPED_READER,
		/** A reader scoped to other services. */
		OTHER_READER

	}

	enum Need {

		NONE(EnumSet.allOf(Caller.class)), ANY_TOKEN(EnumSet.complementOf(EnumSet.of(Caller.ANONYMOUS))),
		/** Reading the service in the path. */
		READ(EnumSet.of(Caller.READER, Caller.REGISTRANT, Caller.STRANGER, Caller.OPERATOR, Caller.ADMIN,
				Caller.SCOPED_READER)),
		/** Reading across services: no scoped reader. */
		READ_ALL(EnumSet.of(Caller.READER, Caller.REGISTRANT, Caller.STRANGER, Caller.OPERATOR, Caller.ADMIN)),
		REGISTER(EnumSet.of(Caller.REGISTRANT, Caller.OPERATOR, Caller.ADMIN)),
		OPERATE(EnumSet.of(Caller.OPERATOR, Caller.ADMIN)), ADMINISTER(EnumSet.of(Caller.ADMIN));

		final Set<Caller> allowed;

		Need(Set<Caller> allowed) {
			this.allowed = allowed;
		}

	}

	record Call(String path, String body) {

		static Call of(String path) {
			return new Call(path, null);
		}

	}

	record Endpoint(String method, String pattern, Need need, Function<Fixture, Call> call) {

		String key() {
			return method + " " + pattern;
		}

	}

	/**
	 * A fresh service with five instances, blue b1 b2, green g1 g2 and x, and a release.
	 */
	record Fixture(String service, long release) {

		String instances() {
			return "/v1/services/" + service + "/instances";
		}

	}

	static final String IN_SCOPE = "mxin";

	static final List<Endpoint> ENDPOINTS = List.of(
			new Endpoint("GET", "/v1/services", Need.READ_ALL, f -> Call.of("/v1/services")),
			new Endpoint("GET", "/v1/services/{service}", Need.READ, f -> Call.of("/v1/services/" + f.service())),
			new Endpoint("PATCH", "/v1/services/{service}", Need.OPERATE,
					f -> new Call("/v1/services/" + f.service(), "{\"leaseTtlSeconds\":40}")),
			// Forced: the fixture's service has instances (and a release, which goes with
			// it).
			new Endpoint("DELETE", "/v1/services/{service}", Need.OPERATE,
					f -> Call.of("/v1/services/" + f.service() + "?force=true")),
			new Endpoint("GET", "/v1/services/{service}/instances", Need.READ, f -> Call.of(f.instances())),
			new Endpoint("GET", "/v1/services/{service}/instances/{id}", Need.READ, f -> Call.of(f.instances() + "/x")),
			new Endpoint("PUT", "/v1/services/{service}/instances/{id}", Need.REGISTER,
					f -> new Call(f.instances() + "/new", Registration.at("10.0.0.9", 80).json())),
			new Endpoint("DELETE", "/v1/services/{service}/instances/{id}", Need.REGISTER,
					f -> Call.of(f.instances() + "/x")),
			new Endpoint("PATCH", "/v1/services/{service}/instances/{id}", Need.OPERATE,
					f -> new Call(f.instances() + "/x", "{\"weight\":90}")),
			new Endpoint("POST", "/v1/services/{service}/instances/{id}/heartbeat", Need.REGISTER,
					f -> new Call(f.instances() + "/x/heartbeat", null)),
			new Endpoint("POST", "/v1/services/{service}/instances/{id}/drain", Need.REGISTER,
					f -> new Call(f.instances() + "/x/drain", "{\"durationSeconds\":60}")),
			new Endpoint("POST", "/v1/services/{service}/instances/{id}/serve", Need.OPERATE,
					f -> new Call(f.instances() + "/x/serve", "{\"warmupSeconds\":0}")),
			new Endpoint("POST", "/v1/services/{service}/instances/{id}/maintenance", Need.OPERATE,
					f -> new Call(f.instances() + "/x/maintenance", "{\"reason\":\"disk\"}")),
			new Endpoint("POST", "/v1/services/{service}/drains", Need.OPERATE,
					f -> new Call("/v1/services/" + f.service() + "/drains", "{\"instances\":[\"x\"]}")),
			new Endpoint("GET", "/v1/services/{service}/releases", Need.READ,
					f -> Call.of("/v1/services/" + f.service() + "/releases")),
			new Endpoint("POST", "/v1/services/{service}/releases", Need.OPERATE, AccessMatrixTest::secondRelease),
			new Endpoint("GET", "/v1/services/{service}/releases/{id}", Need.READ, f -> Call.of(release(f, ""))),
			new Endpoint("POST", "/v1/services/{service}/releases/{id}/advance", Need.OPERATE,
					f -> new Call(release(f, "/advance"), null)),
			new Endpoint("POST", "/v1/services/{service}/releases/{id}/promote", Need.OPERATE,
					f -> new Call(release(f, "/promote"), null)),
			new Endpoint("POST", "/v1/services/{service}/releases/{id}/abort", Need.OPERATE,
					f -> new Call(release(f, "/abort"), null)),
			new Endpoint("GET", "/v1/services/{service}/watch", Need.READ,
					f -> Call.of("/v1/services/" + f.service() + "/watch")),
			new Endpoint("GET", "/v1/watch", Need.READ_ALL, f -> Call.of("/v1/watch?service=" + f.service())),
			new Endpoint("GET", "/v1/services/{service}/subscribers", Need.READ,
					f -> Call.of("/v1/services/" + f.service() + "/subscribers")),
			new Endpoint("POST", "/v1/services/{service}/subscribers/{subscriber}/ack", Need.READ,
					f -> new Call("/v1/services/" + f.service() + "/subscribers/lb-1/ack", "{\"revision\":1}")),
			new Endpoint("GET", "/v1/prometheus/targets", Need.READ_ALL,
					f -> Call.of("/v1/prometheus/targets?service=" + f.service())),
			new Endpoint("GET", "/v1/audit", Need.OPERATE, f -> Call.of("/v1/audit?service=" + f.service())),
			new Endpoint("GET", "/v1/nodes", Need.OPERATE, f -> Call.of("/v1/nodes")),
			new Endpoint("GET", "/v1/tokens", Need.ADMINISTER, f -> Call.of("/v1/tokens")),
			new Endpoint("GET", "/v1/tokens/self", Need.ANY_TOKEN, f -> Call.of("/v1/tokens/self")),
			new Endpoint("POST", "/v1/tokens", Need.ADMINISTER,
					f -> new Call("/v1/tokens", "{\"name\":\"matrix\",\"role\":\"reader\"}")),
			new Endpoint("DELETE", "/v1/tokens/{id}", Need.ADMINISTER, AccessMatrixTest::disposableToken),
			new Endpoint("GET", "/v1/status/leader", Need.NONE, f -> Call.of("/v1/status/leader")),
			// Without a token: an empty list, filtered as Consul filters by ACL.
			new Endpoint("GET", "/v1/catalog/services", Need.NONE, f -> Call.of("/v1/catalog/services")),
			new Endpoint("GET", "/v1/agent/self", Need.ANY_TOKEN, f -> Call.of("/v1/agent/self")),
			new Endpoint("GET", "/v1/catalog/service/{service}", Need.READ,
					f -> Call.of("/v1/catalog/service/" + f.service())),
			new Endpoint("GET", "/v1/health/service/{service}", Need.READ,
					f -> Call.of("/v1/health/service/" + f.service() + "?passing")),
			new Endpoint("GET", "/v1/health/checks/{service}", Need.READ,
					f -> Call.of("/v1/health/checks/" + f.service())),
			new Endpoint("GET", "/v1/agent/services", Need.READ_ALL, f -> Call.of("/v1/agent/services")),
			new Endpoint("GET", "/v1/agent/service/{id}", Need.READ_ALL,
					f -> Call.of("/v1/agent/service/" + consulInstance(f))),
			new Endpoint("GET", "/v1/agent/checks", Need.READ_ALL, f -> Call.of("/v1/agent/checks")),
			new Endpoint("PUT", "/v1/agent/service/register", Need.REGISTER,
					f -> new Call("/v1/agent/service/register",
							"""
									{"ID":"c.%s","Name":"%s","Address":"10.0.0.9","Port":80,"Check":{"TTL":"30s"}}"""
								.formatted(f.service(), f.service()))),
			new Endpoint("PUT", "/v1/agent/service/deregister/{id}", Need.REGISTER,
					f -> Call.of("/v1/agent/service/deregister/" + consulInstance(f))),
			new Endpoint("PUT", "/v1/agent/check/{state}/{check}", Need.REGISTER,
					f -> Call.of("/v1/agent/check/pass/service:" + consulInstance(f))),
			new Endpoint("PUT", "/v1/agent/service/maintenance/{id}", Need.REGISTER,
					f -> Call.of("/v1/agent/service/maintenance/" + consulInstance(f) + "?enable=true")),
			new Endpoint("GET", "/actuator/health", Need.NONE, f -> Call.of("/actuator/health")),
			new Endpoint("GET", "/actuator/health/liveness", Need.NONE, f -> Call.of("/actuator/health/liveness")),
			new Endpoint("GET", "/actuator/health/readiness", Need.NONE, f -> Call.of("/actuator/health/readiness")),
			new Endpoint("GET", "/actuator/prometheus", Need.READ_ALL, f -> Call.of("/actuator/prometheus")),
			new Endpoint("GET", "/swagger-ui/index.html", Need.NONE, f -> Call.of("/swagger-ui/index.html")),
			new Endpoint("GET", "/v3/api-docs", Need.NONE, f -> Call.of("/v3/api-docs")),
			new Endpoint("GET", "/console/", Need.NONE, f -> Call.of("/console/")),
			new Endpoint("GET", "/console/console.js", Need.NONE, f -> Call.of("/console/console.js")));

	static Api admin;

	@LocalServerPort
	int port;

	@Autowired
	@Qualifier("requestMappingHandlerMapping")
	RequestMappingHandlerMapping mappings;

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final Map<Caller, String> tokens = new java.util.EnumMap<>(Caller.class);

	@BeforeAll
	void createOneTokenPerCaller() {
		admin = Api.on(port);
		// The first request for the OpenAPI document generates it (13.7 s measured on a
		// loaded machine), longer than a call of the matrix may take.
		assertThat(Api.unchecked(port).get("/v3/api-docs").status()).isEqualTo(200);
		tokens.put(Caller.READER, create("{\"name\":\"matrix reader\",\"role\":\"reader\"}"));
		tokens.put(Caller.REGISTRANT, create(
				"{\"name\":\"matrix registrant\",\"role\":\"registrant\",\"services\":[\"" + IN_SCOPE + "-*\"]}"));
		tokens.put(Caller.STRANGER,
				create("{\"name\":\"matrix stranger\",\"role\":\"registrant\",\"services\":[\"elsewhere-*\"]}"));
		tokens.put(Caller.SCOPED_READER, create(
				"{\"name\":\"matrix scoped reader\",\"role\":\"reader\",\"services\":[\"" + IN_SCOPE + "-*\"]}"));
		tokens.put(Caller.OTHER_READER,
				create("{\"name\":\"matrix other reader\",\"role\":\"reader\",\"services\":[\"elsewhere-*\"]}"));
		tokens.put(Caller.OPERATOR, create("{\"name\":\"matrix operator\",\"role\":\"operator\"}"));
		tokens.put(Caller.ADMIN, create("{\"name\":\"matrix admin\",\"role\":\"admin\"}"));
	}

	@Test
	void everyEndpointTheApplicationServesHasADecisionInThisTable() {
		Set<String> served = ServedEndpoints.of(mappings);
		Set<String> decided = new TreeSet<>();
		ENDPOINTS.stream().filter(e -> e.pattern().startsWith("/v1/")).forEach(e -> decided.add(e.key()));
		assertThat(served).isEqualTo(decided);
	}

	@Test
	void everyCallerGetsExactlyWhatItsRoleAllows() throws Exception {
		List<String> wrong = new ArrayList<>();
		for (Endpoint endpoint : ENDPOINTS) {
			for (Caller caller : Caller.values()) {
				Call call = endpoint.call().apply(fixture());
				int status;
				try {
					status = send(endpoint.method(), call, tokens.get(caller));
				}
				catch (java.util.concurrent.ExecutionException ex) {
					wrong.add("%s as %s: no answer (%s)".formatted(endpoint.key(), caller, ex.getCause()));
					continue;
				}
				boolean allowed = endpoint.need().allowed.contains(caller);
				boolean right = allowed ? status >= 200 && status < 300
						: status == (caller == Caller.ANONYMOUS ? 401 : 403);
				if (!right) {
					wrong.add("%s as %s: %d (expected %s)".formatted(endpoint.key(), caller, status,
							allowed ? "2xx" : caller == Caller.ANONYMOUS ? "401" : "403"));
				}
			}
		}
		assertThat(wrong).isEmpty();
	}

	@Test
	void aRegistrantIsConfinedToItsScopeForEveryRegistrationCall() throws Exception {
		String stranger = tokens.get(Caller.STRANGER);
		Fixture inside = fixture();
		assertThat(send("PUT", new Call(inside.instances() + "/y", Registration.at("h", 1).json()), stranger))
			.isEqualTo(403);
		assertThat(admin.get(inside.instances() + "/y").status()).as("nothing was written").isEqualTo(404);
		String elsewhere = Names.service("elsewhere");
		assertThat(send("PUT",
				new Call("/v1/services/%s/instances/y".formatted(elsewhere), Registration.at("h", 1).json()), stranger))
			.isEqualTo(201);
	}

	private Fixture fixture() {
		String service = Names.service(IN_SCOPE);
		String instances = "/v1/services/" + service + "/instances/";
		for (String blue : List.of("b1", "b2")) {
			admin.put(instances + blue, Registration.at("h", 1).metadata("color", "blue"));
		}
		for (String green : List.of("g1", "g2")) {
			admin.put(instances + green, Registration.at("h", 1).metadata("color", "green"));
		}
		assertThat(admin.put(instances + "x", Registration.at("h", 1)).status()).isEqualTo(201);
		Api.Reply release = admin.send("POST", "/v1/services/" + service + "/releases",
				"{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"green\"},\"steps\":[10,50,100]}", null);
		assertThat(release.status()).isEqualTo(201);
		return new Fixture(service, release.json().get("id").asLong());
	}

	private static String release(Fixture fixture, String action) {
		return "/v1/services/%s/releases/%d%s".formatted(fixture.service(), fixture.release(), action);
	}

	/** One release per service at a time: the fixture's is ended first. */
	private static Call secondRelease(Fixture fixture) {
		assertThat(admin.send("POST", release(fixture, "/abort"), null, null).status()).isEqualTo(200);
		return new Call("/v1/services/" + fixture.service() + "/releases",
				"{\"from\":{\"color\":\"green\"},\"to\":{\"color\":\"blue\"},\"steps\":[10,100]}");
	}

	/**
	 * An instance whose id no other service holds: Consul's agent endpoints name
	 * instances by id alone.
	 */
	private static String consulInstance(Fixture fixture) {
		String id = "c." + fixture.service();
		assertThat(admin.put(fixture.instances() + "/" + id, Registration.at("h", 1)).status()).isEqualTo(201);
		return id;
	}

	private static Call disposableToken(Fixture fixture) {
		Api.Reply created = admin.send("POST", "/v1/tokens", "{\"name\":\"disposable\",\"role\":\"reader\"}", null);
		return Call.of("/v1/tokens/" + created.json().get("id").asString());
	}

	private static String create(String body) {
		Api.Reply reply = admin.send("POST", "/v1/tokens", body, null);
		assertThat(reply.status()).isEqualTo(201);
		return reply.json().get("token").asString();
	}

	/** Sends the call; for a stream, only its status is awaited and then it is closed. */
	private int send(String method, Call call, String token) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + call.path()))
			.timeout(Duration.ofSeconds(10))
			.method(method, call.body() == null ? HttpRequest.BodyPublishers.noBody()
					: HttpRequest.BodyPublishers.ofString(call.body()));
		if (call.body() != null) {
			request.header("Content-Type", "application/json");
		}
		if (token != null) {
			request.header("Authorization", "Bearer " + token);
		}
		HttpResponse<InputStream> response = http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream())
			.get(15, TimeUnit.SECONDS);
		try (InputStream body = response.body()) {
			if (!call.path().contains("watch")) {
				body.readAllBytes();
			}
		}
		return response.statusCode();
	}

}

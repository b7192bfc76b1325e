package dev.ballast.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ballast.web.ShortWays.InstancePath;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import org.springframework.http.server.PathContainer;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

import static dev.ballast.support.Properties.charsBetween;
import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every short way shares: one rule for the names in an instance's path, the shape of
 * a plain request, running as the admitted caller, and the answer with the chain's
 * headers.
 */
class ShortWaysTest {

	private static final PathPattern INSTANCE = PathPatternParser.defaultInstance
		.parse("/v1/services/{service}/instances/{id}");

	private static final PathPattern HEARTBEAT = PathPatternParser.defaultInstance
		.parse("/v1/services/{service}/instances/{id}/heartbeat");

	private final List<String> chainHeaders = new ArrayList<>();

	private final ShortWays shortWays = new ShortWays(new ChainDecision() {

		@Override
		public Optional<Authentication> admit(HttpServletRequest request) {
			return Optional.of(new TestingAuthenticationToken("caller", null));
		}

		@Override
		public void writeHeaders(HttpServletRequest request, HttpServletResponse response) {
			chainHeaders.add(request.getRequestURI());
			response.setHeader("X-Chain", "written");
		}

	});

	/**
	 * A path is taken only with the names the full way's own pattern reads from it, and
	 * only when each is one plain segment, whatever the characters: both short ways by
	 * the one rule.
	 */
	@Test
	void takesAnInstancePathOnlyWithTheNamesTheFullWayReadsFromIt() {
		qt(3000).forAll(segments(), segments(), Generate.pick(List.of("", "/heartbeat")))
			.checkAssert((service, id, suffix) -> {
				String uri = "/v1/services/" + service + "/instances/" + id + suffix;
				InstancePath taken = ShortWays.instancePath(uri, suffix);
				if (taken != null) {
					PathPattern pattern = suffix.isEmpty() ? INSTANCE : HEARTBEAT;
					PathPattern.PathMatchInfo matched = pattern.matchAndExtract(PathContainer.parsePath(uri));
					assertThat(matched).as(uri).isNotNull();
					assertThat(new InstancePath(matched.getUriVariables().get("service"),
							matched.getUriVariables().get("id")))
						.as(uri)
						.isEqualTo(taken)
						.isEqualTo(new InstancePath(service, id));
				}
				assertThat(taken != null).as(uri).isEqualTo(plainSegment(service) && plainSegment(id));
			});
	}

	@Test
	void takesNoOtherPath() {
		assertThat(ShortWays.instancePath("/v1/services/pay/instances/10.0.0.5:80/heartbeat", "/heartbeat"))
			.isEqualTo(new InstancePath("pay", "10.0.0.5:80"));
		assertThat(ShortWays.instancePath("/v1/services/pay/instances/10.0.0.5:80", ""))
			.isEqualTo(new InstancePath("pay", "10.0.0.5:80"));
		for (String uri : List.of("/v1/services/pay/instances/a/heartbeats", "/v1/services/pay/instances/a",
				"/v1/services/pay/drains/a/heartbeat", "/v1/services/pay/instances/heartbeat",
				"/v1/services/pay/heartbeat", "/v2/services/pay/instances/a/heartbeat", "/v1/services/pay")) {
			assertThat(ShortWays.instancePath(uri, "/heartbeat")).as(uri).isNull();
		}
		assertThat(ShortWays.instancePath("/v1/services/pay/instances/a/heartbeat", "")).isNull();
		assertThat(ShortWays.instancePath("/v1/services/pay/instances/", "")).isNull();
	}

	@Test
	void aPlainRequestIsAFirstDispatchWithoutQueryKeyOrContextPathAcceptingJson() {
		assertThat(ShortWays.plain(request("PUT"), "PUT")).isTrue();
		assertThat(ShortWays.plain(request("PUT"), "POST")).isFalse();
		MockHttpServletRequest query = request("PUT");
		query.setQueryString("force=true");
		MockHttpServletRequest keyed = request("PUT");
		keyed.addHeader("Idempotency-Key", "k");
		MockHttpServletRequest mounted = request("PUT");
		mounted.setContextPath("/registry");
		MockHttpServletRequest async = request("PUT");
		async.setDispatcherType(DispatcherType.ASYNC);
		for (MockHttpServletRequest other : List.of(query, keyed, mounted, async)) {
			assertThat(ShortWays.plain(other, "PUT")).isFalse();
		}
		for (String accept : List.of("*/*", "application/json")) {
			MockHttpServletRequest accepting = request("PUT");
			accepting.addHeader("Accept", accept);
			assertThat(ShortWays.plain(accepting, "PUT")).as(accept).isTrue();
		}
		for (String accept : List.of("application/json;q=0.9", "text/plain", "application/*")) {
			MockHttpServletRequest accepting = request("PUT");
			accepting.addHeader("Accept", accept);
			assertThat(ShortWays.plain(accepting, "PUT")).as(accept).isFalse();
		}
	}

	@Test
	void answersWithTheChainsHeadersTheStatusTheHeadersAndTheJsonBody() throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();

		shortWays.answer(request("PUT"), response, 201, Map.of("ETag", "\"7\""), "{\"a\":1}".getBytes());

		assertThat(response.getStatus()).isEqualTo(201);
		assertThat(response.getHeader("X-Chain")).isEqualTo("written");
		assertThat(response.getHeader("ETag")).isEqualTo("\"7\"");
		assertThat(response.getContentType()).isEqualTo("application/json");
		assertThat(response.getContentLength()).isEqualTo(7);
		assertThat(response.getContentAsString()).isEqualTo("{\"a\":1}");
	}

	@Test
	void aRefusalCarriesTheChainsHeadersToo() throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();

		shortWays.refuse(request("PUT"), response, (request, answer) -> answer.setStatus(503));

		assertThat(response.getStatus()).isEqualTo(503);
		assertThat(response.getHeader("X-Chain")).isEqualTo("written");
	}

	@Test
	void runsAsTheCallerAndLeavesNoContextBehind() {
		Authentication caller = shortWays.admit(request("PUT")).orElseThrow();

		String seen = shortWays.asCaller(request("PUT"), new MockHttpServletResponse(), caller, () -> {
			assertThat(RequestContextHolder.getRequestAttributes()).isNotNull();
			return SecurityContextHolder.getContext().getAuthentication().getName();
		});

		assertThat(seen).isEqualTo("caller");
		assertThat(SecurityContextHolder.getContext().getAuthentication()).isNull();
		assertThat(RequestContextHolder.getRequestAttributes()).isNull();
	}

	private static MockHttpServletRequest request(String method) {
		return new MockHttpServletRequest(method, "/v1/services/pay/instances/a");
	}

	/**
	 * The rule, written apart from the one under test: one segment, nothing to decode.
	 */
	private static boolean plainSegment(String segment) {
		return segment.matches("[^/%;]+") && !segment.equals(".") && !segment.equals("..");
	}

	/** Names, and names with what a path may hide in them. */
	private static Gen<String> segments() {
		Gen<String> names = charsBetween('a', 'e', 0, 4);
		Gen<String> tricky = Generate
			.pick(List.of("", ".", "..", "a/b", "a%2Fb", "a;x=1", "%2e", "a.b", "10.0.0.5:80", "/", "a//b", "-", "_"));
		return names.mix(tricky, 40);
	}

}

package dev.ballast.registry;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ballast.database.DatabaseServers;
import org.junit.jupiter.api.Test;

import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a check may be, at the edges of each rule, and what it may target: only its own
 * instance (address, and port unless configured), or a network the operator allows; never
 * link-local, never the node's own ports, its database or a denied network.
 */
class CheckDefinitionTest {

	private static final CheckTargets OWN = new CheckTargets(List.of(), false);

	@Test
	void intervalsRunFromOneSecondToOneHour() {
		assertThat(tcp(Duration.ofSeconds(1), null).interval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(tcp(Duration.ofHours(1), null).interval()).isEqualTo(Duration.ofHours(1));
		refused(() -> tcp(Duration.ofMillis(999), null), "interval", "from 1 s to 1 h; got 999 ms");
		refused(() -> tcp(Duration.ofSeconds(3601), null), "interval", "got 3601 s");
		refused(() -> tcp(Duration.ofNanos(1), null), "interval", "got 1 ns");
	}

	@Test
	void theTimeoutIsShorterThanTheIntervalAndDefaultsToTwoSecondsOrHalfOfIt() {
		assertThat(tcp(Duration.ofSeconds(10), null).timeout()).isEqualTo(Duration.ofSeconds(2));
		assertThat(tcp(Duration.ofSeconds(1), null).timeout()).isEqualTo(Duration.ofMillis(500));
		assertThat(tcp(Duration.ofSeconds(2), Duration.ofMillis(1999)).timeout()).isEqualTo(Duration.ofMillis(1999));
		refused(() -> tcp(Duration.ofSeconds(2), Duration.ofSeconds(2)), "timeout", "shorter than the interval");
		refused(() -> tcp(Duration.ofSeconds(2), Duration.ofMillis(99)), "timeout", "at least 100 ms");
		refused(() -> tcp(Duration.ofSeconds(2), Duration.ofMillis(-5)), "timeout", "at least 100 ms");
	}

	@Test
	void httpTargetsAreAbsoluteUrlsWithoutCredentials() {
		assertThat(http("http://10.0.0.5:8080/health").port()).isEqualTo(Port.of(8080));
		assertThat(http("https://app.internal/health").port()).isEqualTo(Port.of(443));
		assertThat(http("http://[::1]:9000/h").host()).isEqualTo("::1");
		for (String bad : List.of("file:///etc/passwd", "/health", "gopher://10.0.0.5:70/", "http://u:p@10.0.0.5/",
				"http://10.0.0.5:8080/h#x", "http://10.0.0.5:0/", "http://10.0.0.5:70000/", "http:// 10.0.0.5/", "")) {
			refused(() -> http(bad), "http", "");
		}
	}

	@Test
	void onlyGetAndHeadAndOnlyHttpChecksCarryHeaders() {
		refused(() -> CheckDefinition.of(CheckKind.HTTP, "http://10.0.0.5/", "DELETE", Map.of(), false,
				Duration.ofSeconds(5), null, 0, 0, null), "method", "GET or HEAD");
		refused(() -> CheckDefinition.of(CheckKind.HTTP, "http://10.0.0.5/", "GET", Map.of("Host", List.of("x")), false,
				Duration.ofSeconds(5), null, 0, 0, null), "headers", "");
		refused(() -> CheckDefinition.of(CheckKind.HTTP, "http://10.0.0.5/", "GET",
				Map.of("X-Probe", List.of("a\r\nInjected: 1")), false, Duration.ofSeconds(5), null, 0, 0, null),
				"headers", "printable ASCII");
		refused(() -> CheckDefinition.of(CheckKind.TCP, "10.0.0.5:80", null, Map.of("X", List.of("y")), false,
				Duration.ofSeconds(5), null, 0, 0, null), "headers", "only an HTTP check");
		refused(() -> CheckDefinition.of(CheckKind.TCP, "10.0.0.5:80", null, Map.of(), false, Duration.ofSeconds(5),
				null, 11, 0, null), "failuresBeforeCritical", "0 to 10");
		refused(() -> CheckDefinition.of(CheckKind.TCP, "10.0.0.5:80", null, Map.of(), false, Duration.ofSeconds(5),
				null, 0, 0, Duration.ofSeconds(59)), "deregisterAfter", "at least 1 m");
	}

	@Test
	void grpcTargetsNameAnOptionalService() {
		CheckDefinition check = CheckDefinition.of(CheckKind.GRPC, "10.0.0.5:9090/my.pkg.Svc", null, Map.of(), false,
				Duration.ofSeconds(5), null, 0, 0, null);
		assertThat(check.target()).isEqualTo("10.0.0.5:9090");
		assertThat(check.grpcService()).isEqualTo("my.pkg.Svc");
		refused(() -> CheckDefinition.of(CheckKind.GRPC, "10.0.0.5:9090/a b", null, Map.of(), false,
				Duration.ofSeconds(5), null, 0, 0, null), "grpc", "dotted name");
	}

	@Test
	void aCheckTargetsItsOwnInstanceOnly() {
		OWN.require(http("http://10.0.0.5:8080/health"), "10.0.0.5", Port.of(8080));
		OWN.require(http("http://App.Internal:8080/health"), "app.internal", Port.of(8080));
		OWN.require(http("http://[::1]:8080/health"), "0:0:0:0:0:0:0:1", Port.of(8080));
		refusedTarget(OWN, http("http://10.0.0.6:8080/health"), "10.0.0.5", Port.of(8080),
				"may only probe its own instance");
		refusedTarget(OWN, http("http://10.0.0.5:9090/health"), "10.0.0.5", Port.of(8080), "own port 8080");
		refusedTarget(OWN, http("http://app.internal:8080/"), "10.0.0.5", Port.of(8080),
				"may only probe its own instance");
		refusedTarget(OWN, http("http://169.254.169.254/latest/meta-data/"), "169.254.169.254", Port.of(80),
				"link-local");
		refusedTarget(OWN, http("http://[fe80::1]:80/"), "fe80::1", Port.of(80), "link-local");
		refusedTarget(OWN, http("http://0.0.0.0:80/"), "0.0.0.0", Port.of(80), "unspecified");
		new CheckTargets(List.of(), true).require(http("http://10.0.0.5:9090/health"), "10.0.0.5", Port.of(8080));
	}

	@Test
	void anAllowedNetworkMayBeProbedOnAnyPort() {
		CheckTargets allowing = new CheckTargets(List.of("10.20.0.0/16", "fd00::/8", "169.254.10.1"), false);
		allowing.require(http("http://10.20.255.1:9999/"), "10.0.0.5", Port.of(8080));
		allowing.require(http("http://[fd12::5]:1/"), "10.0.0.5", Port.of(8080));
		allowing.require(http("http://169.254.10.1/"), "10.0.0.5", Port.of(8080));
		refusedTarget(allowing, http("http://10.21.0.1/"), "10.0.0.5", Port.of(8080), "may only probe");
		assertThatThrownBy(() -> new CheckTargets(List.of("10.0.0.0/33"), false))
			.hasMessageContaining("prefix out of range");
		assertThatThrownBy(() -> new CheckTargets(List.of("example.com/8"), false))
			.hasMessageContaining("not a network");
	}

	@Test
	void noCheckReachesTheNodesOwnPortsItsDatabaseOrADeniedNetwork() {
		MockEnvironment node = new MockEnvironment().withProperty("server.port", "0")
			.withProperty("local.server.port", "8080")
			.withProperty("ballast.dns.port", "8600")
			.withProperty("ballast.xds.port", "18000");
		CheckTargets targets = new CheckTargets(List.of("10.0.0.0/8"),
				List.of("10.9.0.0/16", "192.168.1.5:6379", "[fd00::/8]:6379"), true,
				new OwnEndpoints(node, List.of(new DatabaseServers.Server("db.internal", 5432),
						new DatabaseServers.Server("127.0.0.1", 5433))));
		// The node's own listeners, on any of its addresses, even as an instance's own.
		refusedTarget(targets, http("http://127.0.0.1:8080/v1/tokens"), "127.0.0.1", Port.of(8080),
				"registry's own port 8080");
		refusedTarget(targets, tcpAt("127.0.0.1:18000"), "127.0.0.1", Port.of(18000), "registry's own port 18000");
		refusedTarget(targets, tcpAt("[::1]:8600"), "::1", Port.of(8600), "registry's own port 8600");
		// The database: by its name as written, and by its address.
		refusedTarget(targets, tcpAt("db.internal:5432"), "db.internal", Port.of(5432), "registry's database");
		refusedTarget(targets, tcpAt("127.0.0.1:5433"), "127.0.0.1", Port.of(5433), "registry's database");
		// Denied, even inside an allowed network; one port of an address, not the others.
		refusedTarget(targets, http("http://10.9.1.1:80/"), "10.0.0.5", Port.of(8080), "denied-networks");
		refusedTarget(targets, tcpAt("192.168.1.5:6379"), "192.168.1.5", Port.of(6379), "denied-networks");
		refusedTarget(targets, tcpAt("[fd00::7]:6379"), "fd00::7", Port.of(6379), "denied-networks");
		targets.require(tcpAt("192.168.1.5:6380"), "192.168.1.5", Port.of(6380));
		// A loopback address only on its instance's own port, even with any-port.
		refusedTarget(targets, tcpAt("127.0.0.1:6379"), "127.0.0.1", Port.of(9000), "loopback");
		targets.require(tcpAt("127.0.0.1:9000"), "127.0.0.1", Port.of(9000));
		// At each probe, what a name resolved to.
		assertThat(targets.refusal(InetAddress.ofLiteral("127.0.0.2"), Port.of(8080), Port.of(8080)))
			.hasValueSatisfying(why -> assertThat(why).contains("registry's own port 8080"));
		assertThat(targets.refusal(InetAddress.ofLiteral("169.254.169.254"), Port.of(80), Port.of(80)))
			.hasValueSatisfying(why -> assertThat(why).contains("link-local"));
		assertThat(targets.refusal(InetAddress.ofLiteral("10.1.2.3"), Port.of(8080), Port.of(80))).isEmpty();
		for (String bad : List.of("[fd00::/8]x", "10.0.0.0/8:0", "10.0.0.0/8:http", "example.com:80")) {
			assertThatThrownBy(() -> new CheckTargets(List.of(), List.of(bad), false, OwnEndpoints.none())).as(bad)
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("ballast.checks.denied-networks");
		}
	}

	private static CheckDefinition tcpAt(String target) {
		return CheckDefinition.of(CheckKind.TCP, target, null, Map.of(), false, Duration.ofSeconds(5), null, 0, 0,
				null);
	}

	private static CheckDefinition tcp(Duration interval, Duration timeout) {
		return CheckDefinition.of(CheckKind.TCP, "10.0.0.5:80", null, Map.of(), false, interval, timeout, 0, 0, null);
	}

	private static CheckDefinition http(String url) {
		return CheckDefinition.of(CheckKind.HTTP, url, null, Map.of(), false, Duration.ofSeconds(5), null, 0, 0, null);
	}

	private static void refused(Runnable definition, String field, String detail) {
		assertThatThrownBy(definition::run).isInstanceOfSatisfying(CheckRefusal.class, refusal -> {
			assertThat(refusal.field()).isEqualTo(field);
			assertThat(refusal.getMessage()).contains(detail);
		});
	}

	private static void refusedTarget(CheckTargets targets, CheckDefinition check, String address, Port port,
			String detail) {
		assertThatThrownBy(() -> targets.require(check, address, port)).isInstanceOf(CheckRefusal.class)
			.hasMessageContaining(detail);
	}

}

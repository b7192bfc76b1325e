package dev.ballast.xds;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ballast.registry.Health;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.LocalitySetting;
import dev.ballast.registry.Mode;
import dev.ballast.registry.Port;
import dev.ballast.registry.ZoneView;
import dev.ballast.weight.LocalityPolicy;
import dev.ballast.weight.Weight;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * The ClusterLoadAssignment against how its readers pick: each endpoint's expected share
 * of picks under grpc-java's {@code wrr_locality} over {@code round_robin} (a locality by
 * its weight, then its endpoints in turn, endpoint weights ignored) and under Envoy's
 * weighted round robin on endpoint weights, computed from the resource as sent, must be
 * its share of the weights Ballast means, computed from the instances alone with exact
 * fractions.
 */
class EndpointSharesTest {

	private static final List<String> ZONES = Arrays.asList(null, "za", "zb", "zc");

	@Test
	void everyEndpointGetsItsShareOfTheEffectiveWeightUnderGrpcJavaAndEnvoy() {
		qt().forAll(instances()).checkAssert(instances -> {
			InstanceList list = new InstanceList("s", 1, instances, null);
			assertShares(Resources.assignment(list), list);
		});
	}

	@Test
	void everyZoneViewIsSentWithItsOwnWeightsAsShares() {
		qt().forAll(instances(), integers().between(0, 100), integers().between(0, ZONES.size() - 1))
			.checkAssert((instances, cap, zoneIndex) -> {
				InstanceList list = new InstanceList("s", 1, instances,
						new LocalitySetting(LocalityPolicy.Mode.PREFER_LOCAL, cap));
				InstanceList view = ZoneView.of(list, ZONES.get(zoneIndex));
				assertShares(Resources.assignment(view), view);
			});
	}

	@Test
	void threeBackendsAt300And200And100GetHalfAThirdAndASixth() {
		InstanceList list = new InstanceList("demo", 1, List.of(instance("a", "10.0.0.1", null, 300),
				instance("b", "10.0.0.2", null, 200), instance("c", "10.0.0.3", null, 100)), null);
		Map<String, Fraction> shares = grpcJavaShares(Resources.assignment(list));
		assertThat(shares).containsEntry("10.0.0.1:9000", new Fraction(1, 2))
			.containsEntry("10.0.0.2:9000", new Fraction(1, 3))
			.containsEntry("10.0.0.3:9000", new Fraction(1, 6));
	}

	@Test
	void equalWeightsInOneZoneShareOneLocalityWeighedByTheirSum() {
		InstanceList list = new InstanceList("demo", 1, List.of(instance("a", "10.0.0.1", "za", 100),
				instance("b", "10.0.0.2", "za", 100), instance("c", "10.0.0.3", "za", 50)), null);
		ClusterLoadAssignment sent = Resources.assignment(list);
		assertThat(sent.getEndpointsList()).hasSize(2);
		assertThat(sent.getEndpoints(0).getLocality().getSubZone()).isEqualTo("weight-100");
		assertThat(sent.getEndpoints(0).getLoadBalancingWeight().getValue()).isEqualTo(200);
		assertThat(sent.getEndpoints(1).getLoadBalancingWeight().getValue()).isEqualTo(50);
	}

	/**
	 * The shares of the endpoints sent, under each reader, against the instances' own
	 * weights in {@code view}: routable instances with an IP address, each at its
	 * effective weight over their sum.
	 */
	private static void assertShares(ClusterLoadAssignment sent, InstanceList view) {
		Map<String, Fraction> expected = new HashMap<>();
		long total = 0;
		for (InstanceView instance : view.instances()) {
			if (instance.effectiveWeight().value() > 0 && !instance.address().startsWith("host")) {
				total += instance.effectiveWeight().value();
			}
		}
		for (InstanceView instance : view.instances()) {
			if (instance.effectiveWeight().value() > 0 && !instance.address().startsWith("host")) {
				expected.put(key(instance), new Fraction(instance.effectiveWeight().value(), total));
			}
		}
		assertThat(grpcJavaShares(sent)).isEqualTo(expected);
		assertThat(envoyShares(sent)).isEqualTo(expected);
		Set<String> localities = new HashSet<>();
		for (LocalityLbEndpoints locality : sent.getEndpointsList()) {
			assertThat(locality.getLoadBalancingWeight().getValue()).isPositive();
			assertThat(locality.getPriority()).isZero();
			assertThat(localities.add(locality.getLocality().toString())).as("each locality once").isTrue();
			for (LbEndpoint endpoint : locality.getLbEndpointsList()) {
				assertThat(endpoint.getLoadBalancingWeight().getValue()).isPositive();
				assertThat(endpoint.getHealthStatus()).isEqualTo(HealthStatus.HEALTHY);
			}
		}
	}

	/**
	 * grpc-java's wrr_locality over round_robin, from the resource alone: a locality with
	 * probability weight ÷ total, then each of its endpoints equally often.
	 */
	private static Map<String, Fraction> grpcJavaShares(ClusterLoadAssignment sent) {
		long total = sent.getEndpointsList().stream().mapToLong(l -> l.getLoadBalancingWeight().getValue()).sum();
		Map<String, Fraction> shares = new HashMap<>();
		for (LocalityLbEndpoints locality : sent.getEndpointsList()) {
			int n = locality.getLbEndpointsCount();
			for (LbEndpoint endpoint : locality.getLbEndpointsList()) {
				shares.put(key(endpoint), new Fraction(locality.getLoadBalancingWeight().getValue(), total * n));
			}
		}
		return shares;
	}

	/** Envoy's weighted round robin over every endpoint's own weight. */
	private static Map<String, Fraction> envoyShares(ClusterLoadAssignment sent) {
		List<LbEndpoint> all = new ArrayList<>();
		sent.getEndpointsList().forEach(locality -> all.addAll(locality.getLbEndpointsList()));
		long total = all.stream().mapToLong(e -> e.getLoadBalancingWeight().getValue()).sum();
		Map<String, Fraction> shares = new HashMap<>();
		all.forEach(e -> shares.put(key(e), new Fraction(e.getLoadBalancingWeight().getValue(), total)));
		return shares;
	}

	private static String key(LbEndpoint endpoint) {
		var address = endpoint.getEndpoint().getAddress().getSocketAddress();
		return address.getAddress() + ":" + address.getPortValue();
	}

	private static String key(InstanceView instance) {
		return instance.address() + ":" + instance.port().value();
	}

	/**
	 * Up to 40 instances in four zones, weights 0 to 10,000, one in ten with a host name.
	 */
	private static Gen<List<InstanceView>> instances() {
		Gen<Drawn> one = withEdges(integers().between(0, 10_000), 0, 1, 2, 100, 9_999, 10_000).zip(
				integers().between(0, ZONES.size() - 1), integers().between(0, 9),
				(weight, zone, kind) -> new Drawn(weight, ZONES.get(zone), kind == 0));
		return lists().of(one).ofSizeBetween(0, 40).map(EndpointSharesTest::numbered);
	}

	private record Drawn(int weight, String zone, boolean hostName) {
	}

	/**
	 * Each instance its own id and address, in id order as an InstanceList holds them.
	 */
	private static List<InstanceView> numbered(List<Drawn> drawn) {
		List<InstanceView> numbered = new ArrayList<>();
		for (int i = 0; i < drawn.size(); i++) {
			Drawn d = drawn.get(i);
			String address = d.hostName() ? "host-" + i + ".example" : "10.0.%d.%d".formatted(i / 200, i % 200 + 1);
			numbered.add(instance("i%03d".formatted(i), address, d.zone(), d.weight()));
		}
		return numbered;
	}

	private static InstanceView instance(String id, String address, String zone, int weight) {
		return new InstanceView("s", id, address, Port.of(9000), zone, Weight.of(weight), Weight.of(weight), weight > 0,
				Mode.SERVING, null, null, List.of(), Health.PASSING, null, null, Map.of(), List.of(),
				LeaseTtl.ofSeconds(30), Instant.EPOCH, 1);
	}

	/** A fraction in lowest terms, so that equal shares are equal objects. */
	record Fraction(BigInteger numerator, BigInteger denominator) {

		Fraction(long numerator, long denominator) {
			this(reduced(numerator, denominator, true), reduced(numerator, denominator, false));
		}

		private static BigInteger reduced(long numerator, long denominator, boolean top) {
			BigInteger n = BigInteger.valueOf(numerator);
			BigInteger d = BigInteger.valueOf(denominator);
			BigInteger gcd = n.gcd(d);
			return (top ? n : d).divide(gcd);
		}

	}

}

package dev.ballast;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import dev.ballast.support.RegistryTest;
import dev.ballast.support.ServedEndpoints;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@link WriteEndpointsFuzzTest} (and, for the Consul-compatible surface,
 * {@link dev.ballast.consul.ConsulFuzzTest}) complete: every write endpoint the
 * application serves (every mapping but GET) is either fuzzed or left out below with its
 * reason, so a write endpoint added without a place in the fuzz test fails the build.
 */
@RegistryTest
class FuzzCoverageTest {

	/** Write endpoints the fuzz test does not send to, each with why. */
	static final Map<String, String> NOT_FUZZED = Map.of("POST /v1/tokens", """
			tokens belong to no service, and the fuzz test's fixture and its before/after
			snapshot are one service's rows: a refused token write that changed the token
			table would go unseen""", "DELETE /v1/tokens/{id}", """
			as POST /v1/tokens""");

	@Autowired
	@Qualifier("requestMappingHandlerMapping")
	RequestMappingHandlerMapping mappings;

	@Test
	void everyWriteEndpointTheApplicationServesIsFuzzedOrExcusedWithAReason() {
		Set<String> covered = new TreeSet<>(fuzzed());
		NOT_FUZZED.keySet().forEach(endpoint -> covered.add(normalized(endpoint)));
		Set<String> missing = ServedEndpoints.of(mappings)
			.stream()
			.filter(endpoint -> !endpoint.startsWith("GET "))
			.filter(endpoint -> !covered.contains(normalized(endpoint)))
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(missing).as("write endpoints missing from WriteEndpointsFuzzTest.Endpoint").isEmpty();
	}

	@Test
	void theFuzzTestSendsOnlyToEndpointsTheApplicationServes() {
		Set<String> served = ServedEndpoints.of(mappings)
			.stream()
			.map(FuzzCoverageTest::normalized)
			.collect(Collectors.toSet());
		assertThat(fuzzed()).as("fuzzed endpoints the application does not serve").isSubsetOf(served);
		assertThat(NOT_FUZZED.keySet().stream().map(FuzzCoverageTest::normalized).toList())
			.as("excused endpoints the application does not serve")
			.isSubsetOf(served);
	}

	private static Set<String> fuzzed() {
		Set<String> fuzzed = Arrays.stream(WriteEndpointsFuzzTest.Endpoint.values())
			.map(endpoint -> normalized(endpoint.method + " " + endpoint.template))
			.collect(Collectors.toCollection(TreeSet::new));
		dev.ballast.consul.ConsulFuzzTest.ENDPOINTS.forEach(endpoint -> fuzzed.add(normalized(endpoint)));
		return fuzzed;
	}

	/**
	 * The fuzz test names path variables its own way ({@code {second}} for the
	 * controllers' {@code {id}}), so variables are compared without their names.
	 */
	private static String normalized(String endpoint) {
		return endpoint.replaceAll("\\{[^}]*}", "{}");
	}

}

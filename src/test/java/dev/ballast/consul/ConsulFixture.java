package dev.ballast.consul;

import dev.ballast.support.Api;
import dev.ballast.support.Consul;
import dev.ballast.support.Names;
import org.junit.jupiter.api.BeforeEach;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every test of the Consul surface starts from: the {@code @RegistryTest} node seen
 * through both its doors, Consul's ({@link #consul}) and Ballast's own ({@link #api}),
 * and a fresh service of the test's own for each test method. Consul names an instance by
 * its id alone, so the ids made here carry the service's name and stay unique across
 * tests.
 */
abstract class ConsulFixture {

	@LocalServerPort
	int port;

	Consul consul;

	Api api;

	String service;

	private final String prefix;

	/**
	 * @param prefix begins the names of this class's services
	 */
	ConsulFixture(String prefix) {
		this.prefix = prefix;
	}

	@BeforeEach
	void startWithAServiceOfItsOwn() {
		consul = Consul.on(port);
		api = Api.on(port);
		service = Names.service(prefix);
	}

	/** The id of instance {@code name} of the test's service. */
	String id(String name) {
		return name + "." + service;
	}

	/**
	 * Instance {@code name}'s definition as Consul's clients send it: at 10.0.0.1:8080,
	 * with a TTL check of {@code ttl}, and {@code extra} members (each led by a comma).
	 */
	String definition(String name, String ttl, String extra) {
		return """
				{"ID":"%s","Name":"%s","Address":"10.0.0.1","Port":8080,"Check":{"TTL":"%s"}%s}""".formatted(id(name),
				service, ttl, extra);
	}

	/**
	 * Registers {@link #definition} through Consul's agent endpoint, which must accept
	 * it.
	 */
	void register(String name, String ttl, String extra) {
		Consul.Answer answer = consul.put("/v1/agent/service/register", definition(name, ttl, extra));
		assertThat(answer.status()).as(answer.body()).isEqualTo(200);
	}

	/** Instance {@code name} as Ballast's own API answers it. */
	JsonNode ballast(String name) {
		return api.get("/v1/services/%s/instances/%s".formatted(service, id(name))).json();
	}

}

package dev.ballast.example.backend;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A backend that Spring Cloud Consul registers in Ballast (as its Consul) at startup, with
 * an HTTP check of its health that Ballast runs (or TTL heartbeats, if so configured), and
 * deregisters on shutdown; it answers every call with its instance id, so that a caller
 * can count where its calls went.
 */
@SpringBootApplication
@RestController
public class BackendApplication {

	private final String instanceId;

	BackendApplication(@Value("${spring.cloud.consul.discovery.instance-id}") String instanceId) {
		this.instanceId = instanceId;
	}

	public static void main(String[] args) {
		SpringApplication.run(BackendApplication.class, args);
	}

	@GetMapping("/")
	String name() {
		return instanceId;
	}

}

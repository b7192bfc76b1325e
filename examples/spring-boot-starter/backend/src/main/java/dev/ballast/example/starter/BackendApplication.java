package dev.ballast.example.starter;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A backend that the Ballast starter registers once its web server listens, keeps alive
 * with heartbeats and, on SIGTERM, drains and deregisters before the web server stops;
 * it answers every call with its instance id, so that a caller can count where its calls
 * went. Nothing here is about Ballast: application.properties is all it takes.
 */
@SpringBootApplication
@RestController
public class BackendApplication {

	private final String instanceId;

	BackendApplication(@Value("${ballast.instance.id}") String instanceId) {
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

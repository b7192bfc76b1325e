package dev.ballast.example.backend;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * What {@code /actuator/health} says, set by the end-to-end test with {@code POST
 * /health-mode?mode=up|down|hang}: healthy, DOWN (503), or hung as a process whose request
 * threads are stuck (the health request never answers, for up to a minute) while it still
 * serves everything else. Ballast's HTTP check probes it.
 */
@Component
@RestController
class HealthSwitch implements HealthIndicator {

	private volatile String mode = "up";

	@Override
	public Health health() {
		if (mode.equals("hang")) {
			try {
				TimeUnit.SECONDS.sleep(60);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		return mode.equals("down") ? Health.down().withDetail("switch", "down").build() : Health.up().build();
	}

	@PostMapping("/health-mode")
	ResponseEntity<String> set(@RequestParam String mode) {
		String wanted = mode.toLowerCase(Locale.ROOT);
		if (!wanted.equals("up") && !wanted.equals("down") && !wanted.equals("hang")) {
			return ResponseEntity.badRequest().body("mode is up, down or hang");
		}
		this.mode = wanted;
		return ResponseEntity.ok(wanted);
	}

}

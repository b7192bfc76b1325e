package dev.ballast.client;

import java.time.Instant;
import java.util.Map;

/** Instances for tests that need only an id, a weight and whether they are routable. */
final class Instances {

	private Instances() {
	}

	static WatchedInstance weighted(String id, int effectiveWeight) {
		return weighted(id, effectiveWeight, true);
	}

	static WatchedInstance weighted(String id, int effectiveWeight, boolean routable) {
		return new WatchedInstance("payments", id, "10.0.0.5", 8080, null, effectiveWeight, effectiveWeight, routable,
				"SERVING", "PASSING", Map.of(), 30, Instant.parse("2026-11-30T10:00:30Z"), 1);
	}

}

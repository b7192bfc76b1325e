package dev.ballast.spring;

import java.util.Map;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code ballast} health component: UP when the application is registered (if it
 * registers) and every watch stream is open; UNKNOWN, with the reason, while Ballast is
 * out of reach: the application keeps serving (with the last lists it received), so a
 * registry outage never takes it out of its own load balancer or readiness.
 */
final class BallastHealthIndicator implements HealthIndicator {

	private final ObjectProvider<BallastRegistration> registration;

	private final BallastWatches watches;

	BallastHealthIndicator(ObjectProvider<BallastRegistration> registration, BallastWatches watches) {
		this.registration = registration;
		this.watches = watches;
	}

	@Override
	public Health health() {
		Health.Builder health = Health.up();
		Status status = Status.UP;
		BallastRegistration own = registration.getIfAvailable();
		RegistrationState state = (own != null) ? own.state() : null;
		if (state != null) {
			health.withDetail("registration", BallastEndpoint.describe(state));
			if (!state.phase().equals("REGISTERED")) {
				status = state.phase().equals("REGISTERING") ? Status.UNKNOWN : Status.OUT_OF_SERVICE;
			}
		}
		for (Map.Entry<String, BallastWatches.Followed> followed : watches.followed().entrySet()) {
			boolean connected = followed.getValue().connected();
			health.withDetail("watch." + followed.getKey(),
					connected ? "connected" : "reconnecting (the last list applies meanwhile)");
			if (!connected && status.equals(Status.UP)) {
				status = Status.UNKNOWN;
			}
		}
		return health.status(status).build();
	}

}

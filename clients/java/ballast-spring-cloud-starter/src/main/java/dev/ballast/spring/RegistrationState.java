package dev.ballast.spring;

import java.time.Instant;

import dev.ballast.client.InstanceRegistration;

/**
 * Where the application's registration stands, for the health indicator and the endpoint.
 *
 * @param registration what is registered
 * @param phase {@code REGISTERING} (not yet, retrying), {@code REGISTERED},
 * {@code DRAINING}, {@code DEREGISTERED}
 * @param mode the mode the registry last answered, such as {@code SERVING}
 * @param effectiveWeight the effective weight the registry last answered
 * @param lastError the last failure to reach or convince the registry, or null
 * @param since when the phase began
 */
public record RegistrationState(InstanceRegistration registration, String phase, String mode, int effectiveWeight,
		String lastError, Instant since) {

}

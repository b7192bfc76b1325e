package dev.ballast.lease;

import io.micrometer.observation.ObservationPredicate;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.server.observation.ServerRequestObservationContext;

/**
 * Heartbeats are the hottest path by far (100,000 instances renewing every 10 s is 10,000
 * requests a second); the per-request HTTP observation would cost more than the heartbeat
 * itself, so heartbeats are counted by {@code ballast_heartbeats_total} instead.
 */
@Configuration(proxyBeanMethods = false)
class HeartbeatObservations {

	@Bean
	ObservationPredicate skipHeartbeatObservations() {
		return (name, context) -> !(context instanceof ServerRequestObservationContext request
				&& request.getCarrier().getRequestURI().endsWith("/heartbeat"));
	}

}

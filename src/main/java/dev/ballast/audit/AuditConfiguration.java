package dev.ballast.audit;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Fallback;

@Configuration(proxyBeanMethods = false)
class AuditConfiguration {

	/**
	 * Every request is anonymous until an authenticating module provides its own
	 * {@link Actors}; as a fallback bean this one steps aside for it whatever the order
	 * in which the two are found.
	 */
	@Bean
	@Fallback
	Actors anonymousActors() {
		return () -> Actor.ANONYMOUS;
	}

}

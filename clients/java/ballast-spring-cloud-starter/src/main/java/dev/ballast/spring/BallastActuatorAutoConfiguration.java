package dev.ballast.spring;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/** The health indicator and the endpoint, for applications that have the actuator. */
@AutoConfiguration(after = BallastAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(BallastWatches.class)
public class BallastActuatorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "ballastHealthIndicator")
	@ConditionalOnEnabledHealthIndicator("ballast")
	HealthIndicator ballastHealthIndicator(ObjectProvider<BallastRegistration> registration, BallastWatches watches) {
		return new BallastHealthIndicator(registration, watches);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	BallastEndpoint ballastEndpoint(ObjectProvider<BallastRegistration> registration, BallastWatches watches) {
		return new BallastEndpoint(registration, watches);
	}

}

package dev.ballast.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Words a {@link BallastConfigurationException} as Spring Boot's start-up report. */
class BallastFailureAnalyzer extends AbstractFailureAnalyzer<BallastConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, BallastConfigurationException cause) {
		return new FailureAnalysis("Ballast: " + cause.getMessage(), "Set or correct the property " + cause.property()
				+ " (docs/spring-boot.md lists every ballast.* property).", cause);
	}

}

package dev.ballast.database;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when {@code spring.datasource.url} is not set anywhere. */
class NoDatasourceConfigured implements Condition {

	@Override
	public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
		return matches(context.getEnvironment());
	}

	boolean matches(Environment environment) {
		String url = environment.getProperty("spring.datasource.url");
		return url == null || url.isBlank();
	}

}

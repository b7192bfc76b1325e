package dev.ballast.instance;

import dev.ballast.registry.InstanceId;
import dev.ballast.registry.ServiceName;
import dev.ballast.web.PathParameters;
import org.springdoc.core.customizers.OpenApiCustomizer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The service and instance names in the OpenAPI document, with the patterns
 * {@link ServiceName} and {@link InstanceId} hold and an example of each.
 */
@Configuration(proxyBeanMethods = false)
class NamesInApiDocs {

	@Bean
	OpenApiCustomizer serviceNames() {
		return PathParameters.described("service", "{service}", ServiceName.PATTERN, "payments",
				"The service's name: lower-case letters, digits and inner hyphens, 1 to 63 characters");
	}

	@Bean
	OpenApiCustomizer instanceIds() {
		return PathParameters.described("id", "/instances/{id}", InstanceId.PATTERN, "10.0.0.5:8080",
				"The instance's id, chosen by its client and stable across restarts: 1 to 128 of A-Z a-z 0-9 . _ : -");
	}

}

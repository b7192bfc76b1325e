package dev.ballast.web;

import io.swagger.v3.oas.models.media.StringSchema;
import org.springdoc.core.customizers.OpenApiCustomizer;

/**
 * Path parameters described in the OpenAPI document by the type that owns their rule:
 * each module passes its type's pattern, so that the document shows what a name must look
 * like and an example to try, and no pattern is restated by hand.
 */
public final class PathParameters {

	private PathParameters() {
	}

	/**
	 * Describes the path parameter {@code name} of every operation whose path contains
	 * {@code within} (such as {@code /instances/{id}}).
	 */
	public static OpenApiCustomizer described(String name, String within, String pattern, String example,
			String description) {
		return openApi -> openApi.getPaths().forEach((path, item) -> {
			if (!path.contains(within)) {
				return;
			}
			item.readOperations()
				.stream()
				.filter(operation -> operation.getParameters() != null)
				.flatMap(operation -> operation.getParameters().stream())
				.filter(parameter -> "path".equals(parameter.getIn()) && name.equals(parameter.getName()))
				.forEach(parameter -> {
					parameter.description(description).example(example);
					parameter.setSchema(new StringSchema().pattern(pattern));
				});
		});
	}

}

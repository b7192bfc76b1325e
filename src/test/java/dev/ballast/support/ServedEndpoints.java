package dev.ballast.support;

import java.util.Set;
import java.util.TreeSet;

import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The endpoints the application's own controllers serve, as {@code "METHOD /pattern"},
 * read from Spring's handler mappings: for tests whose lists must name every endpoint.
 */
public final class ServedEndpoints {

	private ServedEndpoints() {
	}

	/**
	 * Every endpoint of a {@code dev.ballast} controller. A mapping that names no method
	 * answers them all, and is listed as {@code "ANY /pattern"} so that no list can
	 * overlook it.
	 */
	public static Set<String> of(RequestMappingHandlerMapping mappings) {
		Set<String> served = new TreeSet<>();
		mappings.getHandlerMethods().forEach((info, handler) -> {
			if (handler.getBeanType().getPackageName().startsWith("dev.ballast")) {
				for (String pattern : info.getPatternValues()) {
					if (info.getMethodsCondition().getMethods().isEmpty()) {
						served.add("ANY " + pattern);
					}
					info.getMethodsCondition().getMethods().forEach(method -> served.add(method + " " + pattern));
				}
			}
		});
		return served;
	}

}

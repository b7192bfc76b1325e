package dev.ballast.xds;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.google.protobuf.Any;
import dev.ballast.registry.ServiceName;

/**
 * What one response of a type carries: a resource per name that is a service, and for
 * endpoints each service's revision, which is the response's version ({@code demo:42},
 * {@code a:7,b:3}). Listener, Route and Cluster resources depend on their names alone:
 * version {@value #STATIC_VERSION}.
 *
 * @param resources the resources, in the order of the names
 * @param revisions for endpoints, the revision of each service carried
 * @param version the response's {@code version_info}
 */
record ResponseContent(List<Any> resources, Map<String, Long> revisions, String version) {

	static final String STATIC_VERSION = "1";

	/**
	 * @param endpoints a service's assignment in the stream's zone view, or {@code null}
	 * while its state has not arrived (it is sent when it does)
	 */
	static ResponseContent of(ResourceType type, Iterable<String> names,
			Function<String, ServiceEndpoints.Assignment> endpoints) {
		List<Any> resources = new ArrayList<>();
		Map<String, Long> revisions = new LinkedHashMap<>();
		for (String name : names) {
			if (!ServiceName.valid(name)) {
				continue;
			}
			switch (type) {
				case LISTENER -> resources.add(Any.pack(Resources.listener(name)));
				case ROUTE -> resources.add(Any.pack(Resources.route(name)));
				case CLUSTER -> resources.add(Any.pack(Resources.cluster(name)));
				case ENDPOINTS -> {
					ServiceEndpoints.Assignment assignment = endpoints.apply(name);
					if (assignment != null) {
						resources.add(assignment.resource());
						revisions.put(name, assignment.revision());
					}
				}
			}
		}
		return new ResponseContent(List.copyOf(resources), revisions,
				type == ResourceType.ENDPOINTS ? version(revisions) : STATIC_VERSION);
	}

	private static String version(Map<String, Long> revisions) {
		StringBuilder version = new StringBuilder();
		revisions.forEach((service, revision) -> {
			if (!version.isEmpty()) {
				version.append(',');
			}
			version.append(service).append(':').append(revision);
		});
		return version.toString();
	}

}

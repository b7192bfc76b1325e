package dev.ballast.prometheus;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.ballast.instance.Answer;
import dev.ballast.instance.Headers;
import dev.ballast.instance.InstanceList;
import dev.ballast.instance.InstanceQueries;
import dev.ballast.instance.InstanceView;
import dev.ballast.instance.ServiceName;
import dev.ballast.web.BadParameterException;
import dev.ballast.web.InvalidRequestException;
import jakarta.servlet.http.HttpServletRequest;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "Prometheus", description = "Scrape targets for Prometheus' HTTP service discovery")
class TargetsController {

	private final InstanceQueries queries;

	TargetsController(InstanceQueries queries) {
		this.queries = queries;
	}

	@GetMapping(path = "/v1/prometheus/targets", produces = MediaType.APPLICATION_JSON_VALUE)
	@Operation(operationId = "listPrometheusTargets", summary = "Scrape targets for Prometheus (http_sd_configs)",
			description = """
					The routable instances (effectiveWeight > 0) of every service, or of the services named by `service`, \
					as Prometheus' HTTP service discovery reads them: one group per instance with its `host:port` and its \
					`__meta_ballast_*` labels (service, id, zone when it has one, mode, weight, effective_weight, health, \
					tags as Prometheus' Consul discovery writes __meta_consul_tags (`,v2,canary,`, `,,` for none), \
					and metadata_<key> for each metadata entry, the key's other characters than letters, digits and _ \
					turned into _). An instance at effective weight 0 (weight 0, drained, in maintenance, ejected after \
					its lease ran out) is left out. A named service that is not registered adds no target. Sorted by \
					service and id.""")
	@ApiResponse(responseCode = "200", description = "The target groups",
			headers = @Header(name = Headers.STALE, description = Headers.STALE_DESCRIPTION,
					schema = @Schema(type = "boolean")),
			content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
					array = @ArraySchema(schema = @Schema(implementation = TargetGroup.class))))
	@ApiResponse(responseCode = "400", description = "A service name does not match the service pattern",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = dev.ballast.web.Problem.class)))
	@ApiResponse(responseCode = "503",
			description = "The database is unavailable and this node does not know every service asked for; "
					+ "Prometheus keeps its last targets. Retry after Retry-After.",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = dev.ballast.web.Problem.class)))
	@Parameter(name = "service", in = ParameterIn.QUERY,
			description = "Only this service's targets; repeat for several (default: every service)",
			array = @ArraySchema(schema = @Schema(type = "string")))
	ResponseEntity<List<TargetGroup>> targets(@Parameter(hidden = true) HttpServletRequest request) {
		// Read as sent: Spring would split a value at commas and bind ?service= as no
		// filter at all, which would answer every service to a typo.
		Answer<List<InstanceList>> answer = queries.lists(names(request.getParameterValues("service")));
		List<TargetGroup> groups = answer.value()
			.stream()
			.flatMap(list -> list.instances().stream())
			.filter(InstanceView::routable)
			.map(TargetGroup::of)
			.toList();
		return Headers.ok(answer.stale()).body(groups);
	}

	private static Set<ServiceName> names(String[] services) {
		Set<ServiceName> names = new HashSet<>();
		if (services != null) {
			for (String service : services) {
				try {
					names.add(ServiceName.of(service));
				}
				catch (InvalidRequestException ex) {
					throw new BadParameterException("service", ex.getMessage());
				}
			}
		}
		return names;
	}

}

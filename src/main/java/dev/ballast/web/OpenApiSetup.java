package dev.ballast.web;

import java.util.Comparator;
import java.util.List;
import java.util.Set;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.HeaderParameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import io.swagger.v3.oas.models.tags.Tag;
import org.springdoc.core.customizers.OpenApiCustomizer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The OpenAPI description: API metadata, and the problem responses that every operation
 * shares (a bad service or instance name is 422, an unknown one 404 except where PUT
 * creates it, an unreadable body or a bad query parameter 400), added here once instead
 * of on every handler.
 */
@Configuration(proxyBeanMethods = false)
class OpenApiSetup {

	/**
	 * Response schemas whose every property but the {@link #OPTIONAL} ones is always
	 * present.
	 */
	private static final Set<String> ALWAYS_COMPLETE = Set.of("Instance", "InstanceWithChecks", "InstanceCheck",
			"InstanceList", "Service", "ServiceSummary", "FieldError", "EjectionBudget", "Heartbeat", "SubscriberList",
			"Subscriber", "SubscriberNack", "AuditPage", "AuditEvent", "Node", "ProbedCheck");

	private static final String BEARER = "bearer";

	/**
	 * Tags in the order an operator works: register and find instances, look at services,
	 * take instances out and back, shift traffic, follow, audit, look at the nodes,
	 * manage tokens. Tags not listed follow, by name.
	 */
	static final List<String> TAG_ORDER = List.of("Instances", "Services", "Release modes", "Releases", "Watch",
			"Audit", "Nodes", "Tokens");

	private static final String STREAM_NOTE = "\n\nSwagger UI cannot show a stream: it waits for an answer that "
			+ "never ends and shows LOADING. Follow it with curl instead: curl -N -H \"Authorization: Bearer $TOKEN\" "
			+ "<this URL>.";

	/** Properties left out of a response when they have no value. */
	private static final Set<String> OPTIONAL = Set.of("zone", "modeReason", "modeUntil", "unconfirmedSubscribers",
			"criticalReason", "healthDetail", "checks", "details", "next", "releaseUnderWay", "locality",
			"renewalsThrough", "protocol", "lastNack");

	@Bean
	OpenAPI ballastOpenApi() {
		return new OpenAPI()
			.info(new Info().title("Ballast")
				.version("v1")
				.description("Service registry with strictly typed, guarded instance weights. "
						+ "Every weight is a JSON integer from 0 to 10000 in every request and response.")
				.license(new License().name("Proprietary")))
			// A relative server keeps the document identical on every node and port.
			.servers(List.of(new Server().url("/").description("This registry node")))
			.components(new Components().addSecuritySchemes(BEARER,
					new SecurityScheme().type(SecurityScheme.Type.HTTP)
						.scheme("bearer")
						.description("Paste the token alone, without \"Bearer \" (Swagger UI adds it): one from "
								+ "POST /v1/tokens, or the first admin token (BALLAST_BOOTSTRAP_ADMIN_TOKEN or "
								+ "<data-dir>/admin.token)")))
			.addSecurityItem(new SecurityRequirement().addList(BEARER));
	}

	@Bean
	OpenApiCustomizer operatorsOrder() {
		return openApi -> {
			// A tag named on operations but never described is missing from the list,
			// where Swagger UI would put it last: list every tag the operations use.
			openApi.getPaths()
				.values()
				.stream()
				.flatMap(item -> item.readOperations().stream())
				.filter(operation -> operation.getTags() != null)
				.flatMap(operation -> operation.getTags().stream())
				.distinct()
				.filter(name -> openApi.getTags() == null
						|| openApi.getTags().stream().noneMatch(tag -> tag.getName().equals(name)))
				.forEach(name -> openApi.addTagsItem(new Tag().name(name)));
			if (openApi.getTags() != null) {
				openApi.getTags()
					.sort(Comparator.comparingInt((Tag tag) -> TAG_ORDER.contains(tag.getName())
							? TAG_ORDER.indexOf(tag.getName()) : TAG_ORDER.size())
						.thenComparing(Tag::getName));
			}
			openApi.getPaths()
				.values()
				.forEach(item -> item.readOperations()
					.stream()
					.filter(OpenApiSetup::streams)
					.forEach(operation -> operation.setDescription(
							(operation.getDescription() == null ? "" : operation.getDescription()) + STREAM_NOTE)));
		};
	}

	private static boolean streams(Operation operation) {
		return operation.getResponses() != null && operation.getResponses()
			.values()
			.stream()
			.anyMatch(response -> response.getContent() != null
					&& response.getContent().containsKey(org.springframework.http.MediaType.TEXT_EVENT_STREAM_VALUE));
	}

	@Bean
	OpenApiCustomizer sharedProblemResponses() {
		return openApi -> {
			Components components = openApi.getComponents();
			openApi.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, operation) -> {
				if (method == PathItem.HttpMethod.POST && path.startsWith("/v1/")) {
					operation.addParametersItem(new HeaderParameter().name(IdempotencyKeys.HEADER)
						.required(false)
						.description("Replays the first answer when the same request is sent again with this key "
								+ "(kept 24 h); the same key with another body is 422")
						.schema(new StringSchema().maxLength(255)));
				}
				boolean hasBody = operation.getRequestBody() != null;
				boolean hasParameters = operation.getParameters() != null
						&& operation.getParameters().stream().anyMatch(parameter -> !"path".equals(parameter.getIn()));
				if (hasParameters) {
					addProblem(operation, "400", "A query parameter has bad syntax");
				}
				if (hasBody) {
					addProblem(operation, "400", "The body is not valid JSON");
					addProblem(operation, "413", "The body is larger than 64 KiB");
					addProblem(operation, "422", "The request does not match the schema");
				}
				if (path.startsWith("/v1/")) {
					addProblem(operation, "401", "No token, or one that is unknown, deleted or expired");
					addProblem(operation, "403", "The token lacks the role or the service scope");
					if (method != PathItem.HttpMethod.GET) {
						addProblem(operation, "429",
								"The token's write rate limit is reached. Retry after Retry-After.");
					}
				}
				addProblem(operation, "503",
						Problem.DATABASE_503 + " Or a write's transaction had not committed within the commit wait "
								+ "(outcome-unknown): it may still commit. Retry after Retry-After.");
				if (path.contains("{service}")) {
					if (method != PathItem.HttpMethod.PUT) {
						addProblem(operation, "404", "Unknown service or instance");
					}
					addProblem(operation, "422", "A path parameter or the body does not match the schema");
				}
			}));
			openApi.getPaths()
				.forEach((path, item) -> item.readOperations()
					.forEach(operation -> operation.getResponses()
						.forEach((status, response) -> exemplify(path, operation, status, response))));
			if (components != null && components.getSchemas() != null) {
				components.getSchemas().forEach(OpenApiSetup::requireAll);
			}
		};
	}

	/**
	 * Gives a problem response without an example of its own the example of its status
	 * ({@link ProblemExamples}), so that each status shows its own problem.
	 */
	private static void exemplify(String path, Operation operation, String status, ApiResponse response) {
		MediaType problem = response.getContent() == null ? null
				: response.getContent().get("application/problem+json");
		if (problem == null || problem.getExamples() != null || problem.getExample() != null) {
			return;
		}
		boolean guarded = response.getDescription() != null
				&& response.getDescription().toLowerCase().contains("guard");
		io.swagger.v3.oas.models.examples.Example example = ProblemExamples.of(status, path,
				operation.getRequestBody() != null, guarded);
		if (example != null) {
			problem.addExamples(status, example);
		}
	}

	private static void addProblem(Operation operation, String status, String description) {
		ApiResponses responses = operation.getResponses();
		if (responses.containsKey(status)) {
			return;
		}
		responses.addApiResponse(status,
				new ApiResponse().description(description)
					.content(new Content().addMediaType("application/problem+json",
							new MediaType().schema(new Schema<>().$ref("#/components/schemas/Problem")))));
	}

	/**
	 * Response records always carry every component (nulls aside), so the schema says so
	 * and clients generated from it need no null checks for numbers.
	 */
	private static void requireAll(String name, Schema<?> schema) {
		if (!ALWAYS_COMPLETE.contains(name) || schema.getProperties() == null) {
			return;
		}
		schema.getProperties()
			.keySet()
			.stream()
			.filter(property -> !OPTIONAL.contains(property))
			.forEach(schema::addRequiredItem);
	}

}

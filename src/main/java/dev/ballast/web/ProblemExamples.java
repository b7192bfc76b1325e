package dev.ballast.web;

import java.util.LinkedHashMap;
import java.util.Map;

import io.swagger.v3.oas.models.examples.Example;

/**
 * One example problem per status for the OpenAPI document, so that Swagger UI shows each
 * error response as it is answered, instead of drawing every one from the problem
 * schema's field examples (which made each of them a 422 about a string weight). The
 * types and titles are the ones {@link ProblemResponses} and the security filters send.
 */
final class ProblemExamples {

	private static final String INSTANCE = "/v1/services/payments/instances/10.0.0.5:8080";

	private ProblemExamples() {
	}

	/**
	 * An example of the problem {@code status} answers at {@code path}, or null for a
	 * status without one.
	 * @param hasBody whether the operation takes a body (a 400 is then unparseable JSON,
	 * else a query parameter's syntax)
	 * @param guarded whether a 409 is the guard's (with its figures)
	 */
	static Example of(String status, String path, boolean hasBody, boolean guarded) {
		String at = path.replace("{service}", "payments")
			.replace("/instances/{id}", "/instances/10.0.0.5:8080")
			.replace("/releases/{id}", "/releases/1")
			.replace("/tokens/{id}", "/tokens/0b6c1a52-4f0e-4b7e-9d7e-2f2d3b8a9c11")
			.replace("{subscriber}", "nginx-1");
		return switch (status) {
			case "400" -> hasBody
					? example(ProblemResponses.MALFORMED, "The body is not valid JSON", 400,
							"the body is not valid JSON: Unexpected end-of-input: expected close marker for Object "
									+ "(line 1, column 16)",
							at)
					: example(ProblemResponses.BAD_PARAMETER, "A parameter has bad syntax", 400,
							"wait must be a duration such as 30s, 5m or 1500ms; got \"soon\"", at);
			case "401" -> example("https://ballast.dev/problems/unauthenticated", "A valid bearer token is needed", 401,
					"send a token as Authorization: Bearer <token>; this request has none", at);
			case "403" -> example("https://ballast.dev/problems/forbidden", "The token may not do this", 403,
					"token \"edge\" (reader) may not call this: it needs an operator or admin token", at);
			case "404" -> example(ProblemResponses.NOT_FOUND, "Not found", 404, at.contains("/instances/")
					? "no instance 10.0.0.5:8080 in service payments" : "no service payments", at);
			case "409" -> guarded ? guard(at) : example(ProblemResponses.CONFLICT,
					"The current state does not allow this", 409, "release 1 of payments is COMPLETED", at);
			case "412" -> example(ProblemResponses.STALE, "Precondition failed", 412,
					"instance 10.0.0.5:8080 changed since \"4\"; it is now at revision 5", INSTANCE);
			case "413" -> example(ProblemResponses.TOO_LARGE, "The body is too large", 413,
					"the body is larger than 65536 bytes", at);
			case "429" -> example("https://ballast.dev/problems/rate-limited", "Too many writes", 429,
					"token \"deploys\" may write 50 times a second on this node; retry after Retry-After", at);
			case "503" -> example(ProblemResponses.UNAVAILABLE, "The registry's database is unavailable", 503,
					"the database cannot be reached; nothing was written. Retry after Retry-After", at);
			default -> null;
		};
	}

	private static Example guard(String at) {
		Map<String, Object> figures = new LinkedHashMap<>();
		figures.put("scope", "service");
		figures.put("maxUnroutable", "25%");
		figures.put("limitPercent", 25);
		figures.put("currentPercent", 20.0);
		figures.put("resultingPercent", 40.0);
		figures.put("nominalWeight", 500);
		figures.put("unroutableWeight", 100);
		figures.put("resultingWeight", 200);
		figures.put("holders", java.util.List.of("10.0.0.6:8080"));
		Map<String, Object> problem = problem(ProblemResponses.GUARD.toString(), "A guard would break", 409,
				"draining 10.0.0.5:8080 would make 40% of the capacity of service payments unroutable (limit 25%, "
						+ "now 20%); the budget is held by 10.0.0.6:8080 (in maintenance). Wait until they serve "
						+ "again, raise maxUnroutable (now \"25%\"), or send \"force\": true",
				at);
		problem.put("guard", figures);
		return new Example().summary("409 A guard would break").value(problem);
	}

	private static Example example(Object type, String title, int status, String detail, String at) {
		return new Example().summary(status + " " + title).value(problem(type.toString(), title, status, detail, at));
	}

	private static Map<String, Object> problem(String type, String title, int status, String detail, String at) {
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", type);
		problem.put("title", title);
		problem.put("status", status);
		problem.put("detail", detail);
		problem.put("instance", at);
		return problem;
	}

}

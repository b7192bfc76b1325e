package dev.ballast.web;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.MediaType;

/**
 * An RFC 9457 problem detail, as every refusal is answered.
 *
 * @param type identifies the kind of problem
 * @param title short summary of the kind of problem
 * @param status the HTTP status
 * @param detail what went wrong in this request
 * @param instance the request path
 * @param errors for schema violations, every refused field
 * @param guard for a 409, the limit that would break: scope, limit and percentages,
 * weights, and the instances that hold the budget
 */
@Schema(name = "Problem", description = "RFC 9457 problem detail")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(@Schema(example = "https://ballast.dev/problems/invalid-request") String type,
		@Schema(example = "The request does not match the schema") String title, @Schema(example = "422") int status,
		@Schema(example = "weight must be an integer from 0 to 10000; got the string \"0\"") String detail,
		@Schema(example = "/v1/services/payments/instances/10.0.0.5:8080") String instance, List<FieldError> errors,
		@Schema(description = "For 409: the limit that would break",
				example = """
						{"scope":"service","limitPercent":25,"currentPercent":20.0,"resultingPercent":30.0,\
						"nominalWeight":1000,"unroutableWeight":200,"resultingWeight":300,"holders":["a","b"]}""") Map<String, Object> guard) {

	public Problem(String type, String title, int status, String detail, String instance, List<FieldError> errors) {
		this(type, title, status, detail, instance, errors, null);
	}

	/**
	 * What a 503 about the database means, in the OpenAPI description of every operation
	 * that may answer one; each kind has a problem type of its own
	 * ({@code ProblemResponses}, {@link DatabaseRefusal}).
	 */
	public static final String DATABASE_503 = "The database is unavailable (problem type database-unavailable), "
			+ "or it is up and refused the request: a lock or statement wait ran past its timeout "
			+ "(database-timeout), or the transaction collided with a concurrent one (database-conflict); "
			+ "nothing was written.";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/** This problem as JSON, for a writer outside Spring MVC. */
	String json() {
		return JSON.writeValueAsString(this);
	}

	/** Answers with this problem from a servlet filter, outside Spring MVC. */
	public void send(HttpServletResponse response) throws IOException {
		response.setStatus(status);
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		JSON.writeValue(response.getOutputStream(), this);
	}

}

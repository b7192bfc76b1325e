package dev.ballast.registry;

import java.util.List;
import java.util.regex.Pattern;

import dev.ballast.web.FieldError;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.Quoted;

/**
 * The client-chosen identity of an instance, stable across its restarts, such as
 * {@code 10.0.0.5:8080}.
 *
 * @param value the id; an InstanceId that exists is valid
 */
public record InstanceId(String value) {

	public static final String PATTERN = "^[A-Za-z0-9._:-]{1,128}$";

	private static final Pattern VALID = Pattern.compile(PATTERN);

	public InstanceId {
		if (value == null || !VALID.matcher(value).matches()) {
			throw new InvalidRequestException(List.of(FieldError.parameter("id",
					"instance id must match %s; got %s".formatted(PATTERN, Quoted.quote(value)))));
		}
	}

	public static InstanceId of(String value) {
		return new InstanceId(value);
	}

	@Override
	public String toString() {
		return value;
	}

}

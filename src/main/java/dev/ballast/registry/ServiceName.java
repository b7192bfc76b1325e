package dev.ballast.registry;

import java.util.List;
import java.util.regex.Pattern;

import dev.ballast.web.FieldError;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.Quoted;

/**
 * The name of a service, such as {@code payments}: lower-case DNS label rules.
 *
 * @param value the name; a ServiceName that exists is valid
 */
public record ServiceName(String value) {

	public static final String PATTERN = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$";

	private static final Pattern VALID = Pattern.compile(PATTERN);

	public ServiceName {
		if (value == null || !VALID.matcher(value).matches()) {
			throw new InvalidRequestException(List.of(FieldError.parameter("service",
					"service must match %s (lower-case letters, digits and inner hyphens, at most 63); got %s"
						.formatted(PATTERN, Quoted.quote(value)))));
		}
	}

	public static ServiceName of(String value) {
		return new ServiceName(value);
	}

	/** Whether {@code value} is a service name. */
	public static boolean valid(String value) {
		return value != null && VALID.matcher(value).matches();
	}

	@Override
	public String toString() {
		return value;
	}

}

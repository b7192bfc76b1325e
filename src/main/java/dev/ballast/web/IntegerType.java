package dev.ballast.web;

import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * A value type that travels as one JSON integer within a range, such as a weight, a lease
 * TTL or a port. A module declares one as a bean, and {@link IntegerTypes} makes every
 * response write it as that integer, every request body and the change log read it back
 * only from a JSON integer in range, and the OpenAPI document describe it as one integer
 * schema with that range, so that no annotation restates the range. A refusal of such a
 * field reads {@code port must be an integer from 1 to 65535; got the string "80"}.
 *
 * @param type the value type
 * @param min the smallest value
 * @param max the largest value
 * @param example the value the OpenAPI document shows
 * @param of makes the value from an integer in range
 * @param value the integer a value travels as
 */
public record IntegerType<T>(Class<T> type, int min, int max, int example, IntFunction<T> of, ToIntFunction<T> value) {

	public IntegerType {
		Objects.requireNonNull(type, "type");
		Objects.requireNonNull(of, "of");
		Objects.requireNonNull(value, "value");
		if (min > max || example < min || example > max) {
			throw new IllegalArgumentException(
					"%s: the range %d..%d must hold the example %d".formatted(type.getSimpleName(), min, max, example));
		}
	}

	/**
	 * What a field of this type must be, as refusals say it:
	 * {@code an integer from 1 to 65535}.
	 */
	public String expectation() {
		return "an integer from " + min + " to " + max;
	}

	boolean holds(long candidate) {
		return candidate >= min && candidate <= max;
	}

}

package dev.ballast.web;

import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.ballast.weight.ReceivedValue;
import jakarta.validation.Constraint;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.stereotype.Component;

/**
 * Binds a JSON request body, already parsed into a tree, to a request record and checks
 * its constraints, turning every failure into a {@link FieldError} that names the field
 * by JSON pointer, says what was expected and describes what was received.
 *
 * <p>
 * The expectation for a field is the message of its constraint annotations (for example
 * {@code @Max(value = 100, message = "must be an integer from 0 to 100")}), or for a
 * field of an {@link IntegerType} that type's range, so a type error and a range error on
 * the same field read alike.
 */
@Component
public class RequestReader {

	private final ObjectMapper mapper;

	private final Validator validator;

	private final List<IntegerType<?>> integerTypes;

	RequestReader(ObjectMapper mapper, Validator validator, List<IntegerType<?>> integerTypes) {
		this.mapper = mapper;
		this.validator = validator;
		this.integerTypes = List.copyOf(integerTypes);
	}

	/**
	 * @param body the request body as received
	 * @param type a record whose components carry constraint annotations
	 * @return the bound and validated record
	 * @throws InvalidRequestException listing every problem found
	 */
	public <T> T read(JsonNode body, Class<T> type) {
		if (body == null || !body.isObject()) {
			throw InvalidRequestException.of("", "the body must be a JSON object; got " + ReceivedValue.describe(body));
		}
		refuseNulls(body, type);
		List<FieldError> errors = new ArrayList<>();
		Set<String> leftOut = new HashSet<>();
		T value = bind((ObjectNode) body, type, errors, leftOut);
		if (value != null) {
			// A member left out is missing now: its refusal is said already.
			validator.validate(value)
				.stream()
				.map(violation -> violationError(body, violation))
				.filter(error -> !leftOut.contains(error.pointer()))
				.forEach(errors::add);
		}
		if (!errors.isEmpty()) {
			throw new InvalidRequestException(
					errors.stream().sorted(Comparator.comparing(FieldError::pointer)).distinct().toList());
		}
		return value;
	}

	/**
	 * Binds a body straight from its bytes, without the tree {@link #read} walks to word
	 * its refusals, for a caller that has {@link #read} to answer every refusal: the
	 * bound and validated record, or empty when {@link #read} would refuse the body for
	 * any reason. A body holding the four letters {@code null} anywhere (an explicit
	 * null, which {@link #read} refuses as a value, or those letters in a string) is left
	 * to {@link #read} too, so the two can never bind one body differently, and so is a
	 * body that may hold text the registry cannot store
	 * ({@link StorableText#mayHoldUnstorable}), which the full way refuses at the border.
	 * @param body the request body as received, UTF-8
	 * @param type a record whose components carry constraint annotations
	 * @return the record {@link #read} would return, or empty
	 */
	public <T> Optional<T> readValid(byte[] body, Class<T> type) {
		if (!startsAnObject(body) || holdsNull(body) || StorableText.mayHoldUnstorable(body)) {
			return Optional.empty();
		}
		T value;
		try {
			value = mapper.readValue(body, type);
		}
		catch (JacksonException ex) {
			return Optional.empty();
		}
		return value != null && validator.validate(value).isEmpty() ? Optional.of(value) : Optional.empty();
	}

	private static boolean startsAnObject(byte[] body) {
		for (byte b : body) {
			if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
				return b == '{';
			}
		}
		return false;
	}

	private static boolean holdsNull(byte[] body) {
		for (int i = 0; i + 3 < body.length; i++) {
			if (body[i] == 'n' && body[i + 1] == 'u' && body[i + 2] == 'l' && body[i + 3] == 'l') {
				return true;
			}
		}
		return false;
	}

	/** An explicit null is never a value; a field that may be left out is left out. */
	private void refuseNulls(JsonNode body, Class<?> type) {
		List<FieldError> errors = new ArrayList<>();
		for (var member : body.properties()) {
			if (member.getValue().isNull() && hasComponent(type, member.getKey())) {
				String name = member.getKey();
				errors.add(new FieldError(memberPointer(name),
						"%s %s; got null".formatted(name, expectation(type, name, false))));
			}
		}
		if (!errors.isEmpty()) {
			throw new InvalidRequestException(errors);
		}
	}

	private static String memberPointer(String name) {
		return "/" + name.replace("~", "~0").replace("/", "~1");
	}

	private static boolean hasComponent(Class<?> type, String name) {
		return type.isRecord() && Arrays.stream(type.getRecordComponents()).anyMatch(c -> c.getName().equals(name));
	}

	/**
	 * Binds the body, or returns null. A member that cannot be bound is refused and left
	 * out, and the rest bound again, so that one answer names every bad member (a port
	 * out of range beside a bad address) whether a type or a constraint refuses it; at
	 * most once per component of the record, so that a body of many unknown members costs
	 * no more than one of each.
	 */
	private <T> T bind(ObjectNode body, Class<T> type, List<FieldError> errors, Set<String> leftOut) {
		ObjectNode remaining = body;
		int attempts = type.isRecord() ? type.getRecordComponents().length + 1 : 1;
		for (int attempt = 0; attempt < attempts; attempt++) {
			try {
				return mapper.treeToValue(remaining, type);
			}
			catch (JacksonException ex) {
				errors.add(bindingError(body, type, ex));
				String member = ex.getPath().isEmpty() ? null : ex.getPath().getFirst().getPropertyName();
				if (member == null || !remaining.has(member)) {
					return null;
				}
				if (remaining == body) {
					remaining = body.deepCopy();
				}
				remaining.remove(member);
				leftOut.add(memberPointer(member));
			}
		}
		return null;
	}

	private FieldError bindingError(JsonNode body, Class<?> type, JacksonException ex) {
		String pointer = pointer(ex.getPath());
		String field = fieldName(ex.getPath());
		if (ex instanceof UnrecognizedPropertyException unknown) {
			return new FieldError(pointer, "unknown field \"%s\"; expected one of %s"
				.formatted(unknown.getPropertyName(), unknown.getKnownPropertyIds()));
		}
		String received = ReceivedValue.describe(body.at(pointer));
		return new FieldError(pointer, "%s %s; got %s".formatted(field, expectation(type, ex.getPath()), received));
	}

	private String expectation(Class<?> type, List<JacksonException.Reference> path) {
		if (path.isEmpty() || path.getFirst().getPropertyName() == null) {
			return "must be a JSON object";
		}
		return expectation(type, path.getFirst().getPropertyName(), path.size() > 1);
	}

	private static FieldError violationError(JsonNode body, ConstraintViolation<?> violation) {
		String path = violation.getPropertyPath().toString();
		String pointer = "/" + path.replace('.', '/');
		String field = path.contains(".") ? path.substring(path.lastIndexOf('.') + 1) : path;
		return new FieldError(pointer,
				"%s %s; got %s".formatted(field, violation.getMessage(), ReceivedValue.describe(body.at(pointer))));
	}

	private static String pointer(List<JacksonException.Reference> path) {
		StringBuilder pointer = new StringBuilder();
		for (JacksonException.Reference reference : path) {
			pointer.append('/');
			if (reference.getPropertyName() != null) {
				pointer.append(reference.getPropertyName().replace("~", "~0").replace("/", "~1"));
			}
			else {
				pointer.append(reference.getIndex());
			}
		}
		return pointer.toString();
	}

	private static String fieldName(List<JacksonException.Reference> path) {
		return path.isEmpty() || path.getFirst().getPropertyName() == null ? "the body"
				: path.getFirst().getPropertyName();
	}

	/**
	 * The expectation written on the record component that the error is about
	 * ({@link Expectation} or the message of a constraint), or a plain description of the
	 * component's type.
	 */
	private String expectation(Class<?> type, String name, boolean nested) {
		Field field;
		try {
			field = type.getDeclaredField(name);
		}
		catch (NoSuchFieldException ex) {
			return "is not valid";
		}
		Expectation expectation = field.getAnnotation(Expectation.class);
		if (expectation != null) {
			return expectation.value();
		}
		for (Annotation annotation : field.getAnnotations()) {
			Optional<String> message = constraintMessage(annotation);
			if (message.isPresent()) {
				return message.get();
			}
		}
		return typeExpectation(field.getType(), nested);
	}

	private static Optional<String> constraintMessage(Annotation annotation) {
		if (!annotation.annotationType().isAnnotationPresent(Constraint.class)) {
			return Optional.empty();
		}
		try {
			Method message = annotation.annotationType().getMethod("message");
			String text = (String) message.invoke(annotation);
			return text.startsWith("{") ? Optional.empty() : Optional.of(text);
		}
		catch (ReflectiveOperationException ex) {
			return Optional.empty();
		}
	}

	private String typeExpectation(Class<?> type, boolean nested) {
		for (IntegerType<?> integerType : integerTypes) {
			if (integerType.type() == type) {
				return "must be " + integerType.expectation();
			}
		}
		if (nested && Map.class.isAssignableFrom(type)) {
			return "values must be strings";
		}
		if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
			return "must be an integer";
		}
		if (type == String.class) {
			return "must be a string";
		}
		if (type == Boolean.class || type == boolean.class) {
			return "must be true or false";
		}
		if (type == Instant.class || type == OffsetDateTime.class || type == ZonedDateTime.class) {
			return "must be " + Timestamps.EXPECTED;
		}
		if (type == Duration.class) {
			return "must be an ISO 8601 duration such as PT30S";
		}
		if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
			return "must be a number";
		}
		if (Collection.class.isAssignableFrom(type) || type.isArray()) {
			return "must be a JSON array";
		}
		if (type.isEnum()) {
			return "must be one of " + Arrays.toString(type.getEnumConstants());
		}
		if (Map.class.isAssignableFrom(type)) {
			return "must be a JSON object";
		}
		return type.isRecord() ? "must be a JSON object" : "is not valid";
	}

}

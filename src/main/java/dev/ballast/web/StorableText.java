package dev.ballast.web;

import java.io.IOException;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ballast.weight.ReceivedValue;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.StringNode;

import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdvice;

/**
 * The border's rule for text: PostgreSQL cannot store the NUL character (U+0000) in text
 * or jsonb, and a lone surrogate has no UTF-8 form (the driver sends {@code ?} in its
 * place, so the registry would acknowledge one value and store another). Every string a
 * request brings in is checked here before any handler sees it: every string and key of
 * every JSON body Spring MVC reads ({@link RequestBodyAdvice}, for the REST bodies and
 * the Consul-compatible ones alike), and every query parameter (a
 * {@link HandlerInterceptor}). A refusal names the field: 422 with JSON pointers for a
 * body ({@link InvalidRequestException}), 400 with {@code #name} for a parameter
 * ({@link BadParameterException}); the Consul surface words both its own way. Paths and
 * headers need no rule of their own: Tomcat refuses an encoded NUL in a path and any
 * control character in a header, and decodes neither into surrogates.
 * <p>
 * Refusing such text at the border, rather than where it is stored, keeps a write that
 * could never be stored out of the commit groups in which it would fail its group-mates'
 * statements. Text the registry reads from elsewhere, which it cannot refuse (what a
 * probed server answered), goes through the same rule by {@link #replacingUnstorable}.
 */
@ControllerAdvice
@Configuration(proxyBeanMethods = false)
public class StorableText implements RequestBodyAdvice, WebMvcConfigurer, HandlerInterceptor {

	static final String EXPECTED = "text without U+0000 (NUL) and without unpaired surrogates, "
			+ "which the registry cannot store";

	/** Reads a raw body only to find where its unstorable text is; never binds it. */
	private static final JsonMapper TREES = JsonMapper.builder().build();

	/**
	 * Whether a UTF-8 JSON body may hold unstorable text: it holds a {@code \}{@code u}
	 * escape (the only way JSON text can spell NUL, as raw control characters are not
	 * JSON) or the lead byte 0xED of a UTF-8-encoded surrogate. A body for which this is
	 * false holds none; one for which it is true is read as a tree and checked with
	 * {@link #check(JsonNode)}. A scan of bytes costs nothing next to the parse, so a
	 * reader that binds bytes straight to a record can use it to leave the rare body that
	 * may hold such text to the full way.
	 * @param body a JSON body as received
	 * @return false when the body holds no unstorable text for sure
	 */
	public static boolean mayHoldUnstorable(byte[] body) {
		for (int i = 0; i < body.length; i++) {
			if (body[i] == (byte) 0xED || body[i] == '\\' && i + 1 < body.length && body[i + 1] == 'u') {
				return true;
			}
		}
		return false;
	}

	/**
	 * Refuses a JSON body that holds unstorable text anywhere, in a value or in a key.
	 * @param body the body as parsed
	 * @throws InvalidRequestException naming every such value (by JSON pointer) and every
	 * object with such a key
	 */
	public static void check(JsonNode body) {
		List<FieldError> errors = new ArrayList<>();
		collect(body, "", errors);
		if (!errors.isEmpty()) {
			throw new InvalidRequestException(errors);
		}
	}

	/**
	 * Refuses a parameter whose name or value holds unstorable text.
	 * @throws BadParameterException naming it
	 */
	static void checkParameter(String name, String value) {
		if (!storable(name)) {
			throw new BadParameterException(ReceivedValue.describe(StringNode.valueOf(name)),
					"a parameter name must be " + EXPECTED + "; got "
							+ ReceivedValue.describe(StringNode.valueOf(name)));
		}
		if (!storable(value)) {
			throw new BadParameterException(name, "%s must be %s; got %s".formatted(name, EXPECTED,
					ReceivedValue.describe(StringNode.valueOf(value))));
		}
	}

	/**
	 * Text that did not come in a request, made storable by the same rule: each NUL and
	 * each unpaired surrogate becomes U+FFFD, the replacement character, as a decoder
	 * marks what it could not read. For what the registry reads elsewhere (a probed
	 * server's answer), where refusing is not an option.
	 * @return {@code text} itself when it is storable as it is
	 */
	public static String replacingUnstorable(String text) {
		if (storable(text)) {
			return text;
		}
		StringBuilder replaced = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				replaced.append(c).append(text.charAt(++i));
			}
			else {
				replaced.append(c == 0 || Character.isSurrogate(c) ? '\uFFFD' : c);
			}
		}
		return replaced.toString();
	}

	/** Whether PostgreSQL can store {@code text} as it is. */
	static boolean storable(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == 0) {
				return false;
			}
			if (Character.isHighSurrogate(c)) {
				if (i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
					return false;
				}
				i++;
			}
			else if (Character.isLowSurrogate(c)) {
				return false;
			}
		}
		return true;
	}

	private static void collect(JsonNode node, String pointer, List<FieldError> errors) {
		if (node.isString() && !storable(node.stringValue())) {
			errors.add(new FieldError(pointer,
					"%s must be %s; got %s".formatted(name(pointer), EXPECTED, ReceivedValue.describe(node))));
		}
		else if (node.isArray()) {
			for (int i = 0; i < node.size(); i++) {
				collect(node.get(i), pointer + "/" + i, errors);
			}
		}
		else if (node.isObject()) {
			for (Map.Entry<String, JsonNode> member : node.properties()) {
				String key = member.getKey();
				if (storable(key)) {
					collect(member.getValue(), pointer + "/" + key.replace("~", "~0").replace("/", "~1"), errors);
				}
				else {
					// The key cannot be part of the pointer: the answer could not carry
					// it.
					errors.add(new FieldError(pointer, "keys of %s must be %s; got %s".formatted(name(pointer),
							EXPECTED, ReceivedValue.describe(StringNode.valueOf(key)))));
				}
			}
		}
	}

	/** A field as the refusal names it: its pointer without the leading slash. */
	private static String name(String pointer) {
		return pointer.isEmpty() ? "the body" : pointer.substring(1).replace('/', '.');
	}

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		registry.addInterceptor(this);
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		request.getParameterMap().forEach((name, values) -> {
			for (String value : values) {
				checkParameter(name, value);
			}
		});
		return true;
	}

	@Override
	public boolean supports(MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) {
		return targetType == JsonNode.class || targetType == byte[].class;
	}

	@Override
	public Object afterBodyRead(Object body, HttpInputMessage inputMessage, MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) {
		if (body instanceof JsonNode tree) {
			check(tree);
		}
		else if (body instanceof byte[] bytes && mayHoldUnstorable(bytes)) {
			JsonNode tree;
			try {
				tree = TREES.readTree(bytes);
			}
			catch (JacksonException ex) {
				// Not JSON: its reader refuses it in its own words.
				return body;
			}
			check(tree);
		}
		return body;
	}

	@Override
	public HttpInputMessage beforeBodyRead(HttpInputMessage inputMessage, MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) throws IOException {
		return inputMessage;
	}

	@Override
	public Object handleEmptyBody(Object body, HttpInputMessage inputMessage, MethodParameter parameter,
			Type targetType, Class<? extends HttpMessageConverter<?>> converterType) {
		return body;
	}

}

package dev.ballast.web;

import java.util.Collections;
import java.util.List;
import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Settles the media types of a write before the write is made. Spring chooses the media
 * type of an answer only when it writes it, after the handler ran: a PATCH sent with
 * {@code Accept: text/html} was committed and then answered 406, telling the client that
 * a change it did make was refused. And a wildcard {@code Content-Type}
 * ({@code *}{@code /*}, {@code application/*}) made Spring's reading of the body throw,
 * answered 500.
 */
@Configuration(proxyBeanMethods = false)
class WriteNegotiation implements WebMvcConfigurer, HandlerInterceptor {

	/** Answers to writes are JSON, or a problem in JSON. */
	private static final List<MediaType> ANSWERS = List.of(MediaType.APPLICATION_JSON,
			new MediaType("application", "*+json"));

	private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		registry.addInterceptor(this).addPathPatterns("/v1/**");
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws HttpMediaTypeNotAcceptableException, HttpMediaTypeNotSupportedException {
		if (!WRITES.contains(request.getMethod())) {
			return true;
		}
		String contentType = request.getContentType();
		if (contentType != null && isWildcard(contentType)) {
			throw new HttpMediaTypeNotSupportedException(
					"Content-Type must name one media type, not a pattern; got " + contentType);
		}
		if (accepted(request).stream().noneMatch(type -> ANSWERS.stream().anyMatch(type::isCompatibleWith))) {
			throw new HttpMediaTypeNotAcceptableException(ANSWERS);
		}
		return true;
	}

	/**
	 * The type parses: an unreadable one was refused by {@link UnreadableMediaTypes}.
	 */
	private static boolean isWildcard(String contentType) {
		MediaType type = MediaType.parseMediaType(contentType);
		return type.isWildcardType() || type.isWildcardSubtype();
	}

	/**
	 * As Spring reads the header: absent or empty accepts anything. It parses: an
	 * unreadable one was refused by {@link UnreadableMediaTypes}.
	 */
	private static List<MediaType> accepted(HttpServletRequest request) {
		List<MediaType> types = MediaType.parseMediaTypes(Collections.list(request.getHeaders(HttpHeaders.ACCEPT)));
		return types.isEmpty() ? List.of(MediaType.ALL) : types;
	}

}

package dev.ballast.web;

import java.io.IOException;
import java.net.URI;
import java.util.Locale;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.core.StandardHost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;

/**
 * The answers the servlet container gives itself, as Ballast problems instead of HTML or
 * Spring Boot's error JSON: what is refused with {@code sendError} goes through the error
 * page, served here by a plain servlet; what Tomcat refuses before any servlet runs (a
 * request line or header it cannot read, or one too large) is written by
 * {@link ProblemReportValve} in place of Tomcat's HTML report. (The security firewall's
 * refusals of a path are written by the security module, which knows what it found.)
 */
@Configuration(proxyBeanMethods = false)
class ContainerProblems {

	@Bean
	WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemReports() {
		return factory -> factory.addContextCustomizers(context -> {
			if (context.getParent() instanceof StandardHost host) {
				host.setErrorReportValveClass(ProblemReportValve.class.getName());
			}
		});
	}

	/**
	 * The error page as a servlet of its own rather than a controller: it answers every
	 * method and every Accept the same way, and is not an endpoint of the API.
	 */
	@Bean
	ServletRegistrationBean<ErrorPage> errorPage(@Value("${server.error.path:/error}") String path) {
		return new ServletRegistrationBean<>(new ErrorPage(), path);
	}

	/** Also tells Spring Boot to leave out its own error controller. */
	static final class ErrorPage extends HttpServlet implements ErrorController {

		private static final Logger log = LoggerFactory.getLogger(ErrorPage.class);

		@Override
		protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
			if (response.isCommitted()) {
				return;
			}
			Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
			Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
			String path = uri == null ? request.getRequestURI() : uri.toString();
			// Without a status the page was asked for directly (the access rules refuse
			// that first, with a token or without): nothing is served there.
			int status = code instanceof Integer given ? given : HttpStatus.NOT_FOUND.value();
			Throwable failure = (Throwable) request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
			HttpStatus known = HttpStatus.resolve(status);
			if (known == null) {
				known = status >= 500 ? HttpStatus.INTERNAL_SERVER_ERROR : HttpStatus.BAD_REQUEST;
			}
			response.resetBuffer();
			if (known == HttpStatus.BAD_REQUEST && CutBody.isCauseOf(failure)) {
				CutBody.send(response, path);
				return;
			}
			if (known.is5xxServerError()) {
				log.error("Unexpected failure while serving {}", path, failure);
			}
			answer(response, known, path, detail(known, path));
		}

		private static String detail(HttpStatus status, String path) {
			return switch (status) {
				case NOT_FOUND ->
					"the registry serves nothing at %s; its endpoints are listed in /v3/api-docs".formatted(path);
				case BAD_REQUEST -> "the request cannot be read; see /v3/api-docs for what each endpoint takes";
				default -> status.is5xxServerError() ? "the registry failed to handle this request; it has been logged"
						: "the request is refused: " + status.getReasonPhrase().toLowerCase(Locale.ROOT);
			};
		}

	}

	/**
	 * A problem answer for a status the container chose, with the Ballast type for it.
	 */
	static void answer(HttpServletResponse response, HttpStatus status, String path, String detail) throws IOException {
		problem(status, path, detail).send(response);
	}

	static Problem problem(HttpStatus status, String path, String detail) {
		return new Problem(type(status).toString(), status.getReasonPhrase(), status.value(), detail, path, null);
	}

	static URI type(HttpStatus status) {
		return switch (status) {
			case NOT_FOUND -> ProblemResponses.NOT_FOUND;
			case METHOD_NOT_ALLOWED -> ProblemResponses.METHOD;
			case NOT_ACCEPTABLE -> ProblemResponses.NOT_ACCEPTABLE;
			case UNSUPPORTED_MEDIA_TYPE -> ProblemResponses.MEDIA_TYPE;
			case CONTENT_TOO_LARGE -> ProblemResponses.TOO_LARGE;
			case REQUEST_HEADER_FIELDS_TOO_LARGE, URI_TOO_LONG -> ProblemResponses.TOO_LARGE;
			case SERVICE_UNAVAILABLE -> ProblemResponses.OVERLOADED;
			case NOT_IMPLEMENTED -> ProblemResponses.NOT_IMPLEMENTED;
			default -> status.is5xxServerError() ? ProblemResponses.INTERNAL : ProblemResponses.REFUSED;
		};
	}

}

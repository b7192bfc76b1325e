package dev.ballast.client;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The HTTP requests of the watch contract: one service is watched at
 * {@code /v1/services/{service}/watch}, several at {@code /v1/watch?service=a&service=b},
 * either in one zone's view with {@code zone=}, and applied revisions are acknowledged at
 * {@code /v1/services/{service}/subscribers/{subscriber}/ack}.
 *
 * @param base the registry's base URI; a path in it is kept
 * @param services the watched services, at least one
 * @param subscriber the name this client acknowledges under, or {@code null} for an
 * anonymous watch that never acknowledges
 * @param token the bearer token sent on every request, or {@code null} for none
 * @param timeout how long to wait for the response headers, connecting included
 * @param zone the client's zone, whose view the registry sends ({@code ?zone=}), or
 * {@code null} for the flat view
 */
record RegistryRequests(URI base, List<String> services, String subscriber, String token, Duration timeout,
		String zone) {

	RegistryRequests {
		services = List.copyOf(services);
	}

	/**
	 * @param lastEventId the id to resume after, {@code ""} to start with snapshots
	 */
	HttpRequest watch(String lastEventId) {
		HttpRequest.Builder request = start(watchUri()).header("Accept", "text/event-stream")
			.header("Cache-Control", "no-cache")
			.GET();
		if (!lastEventId.isEmpty()) {
			request.header("Last-Event-ID", lastEventId);
		}
		return request.build();
	}

	HttpRequest ack(String service, long revision) {
		URI uri = uri("/v1/services/" + segment(service) + "/subscribers/" + segment(subscriber) + "/ack");
		return start(uri).header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"revision\":" + revision + "}"))
			.build();
	}

	private URI watchUri() {
		List<String> query = new ArrayList<>();
		if (services.size() > 1) {
			services.forEach((service) -> query.add("service=" + parameter(service)));
		}
		if (subscriber != null) {
			query.add("subscriber=" + parameter(subscriber));
		}
		if (zone != null) {
			query.add("zone=" + parameter(zone));
		}
		String path = (services.size() > 1) ? "/v1/watch" : "/v1/services/" + segment(services.get(0)) + "/watch";
		return uri(query.isEmpty() ? path : path + "?" + String.join("&", query));
	}

	private HttpRequest.Builder start(URI uri) {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout);
		if (token != null) {
			request.header("Authorization", "Bearer " + token);
		}
		return request;
	}

	private URI uri(String pathAndQuery) {
		String prefix = base.toString();
		return URI.create((prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix) + pathAndQuery);
	}

	private static String parameter(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

	/**
	 * A bearer token as it may travel in a header.
	 * @throws IllegalArgumentException unless the token is printable ASCII without spaces
	 */
	static String requireToken(String token) {
		if (token == null || token.isEmpty() || !token.chars().allMatch((c) -> c > ' ' && c < 0x7f)) {
			throw new IllegalArgumentException("token must be printable ASCII without spaces"
					+ ((token == null || token.isEmpty()) ? "; got none" : ""));
		}
		return token;
	}

	// URLEncoder writes a space as '+', which means a space only in a query.
	static String segment(String value) {
		return parameter(value).replace("+", "%20");
	}

}

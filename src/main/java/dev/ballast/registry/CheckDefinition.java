package dev.ballast.registry;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import dev.ballast.web.Quoted;

/**
 * A health check the registry runs against an instance. Built only by
 * {@link #of(CheckKind, String, String, Map, boolean, Duration, Duration, int, int, Duration)},
 * so a definition that exists can be run: its interval is from 1 s to 1 h, its timeout
 * shorter than its interval (a probe never overlaps the next), its target well formed.
 * Whether the target may be probed at all is {@link CheckTargets}' question, because it
 * depends on the instance and the operator's configuration.
 *
 * @param kind how it probes
 * @param target for HTTP an absolute http(s) URL, ASCII (what else it held sent
 * percent-encoded); for TCP and gRPC {@code host:port}
 * @param grpcService the gRPC service whose health is asked for ("" for the server's)
 * @param method GET or HEAD (HTTP only)
 * @param headers request headers (HTTP only)
 * @param tlsSkipVerify whether an https target's certificate goes unchecked
 * @param interval time between probes
 * @param timeout how long one probe may take
 * @param failuresBeforeCritical consecutive failures that make it critical
 * @param successBeforePassing consecutive successes that make it passing again
 * @param deregisterAfter how long it may stay critical before its instance is removed, or
 * null to keep it
 */
public record CheckDefinition(CheckKind kind, String target, String grpcService, String method,
		Map<String, List<String>> headers, boolean tlsSkipVerify, Duration interval, Duration timeout,
		int failuresBeforeCritical, int successBeforePassing, Duration deregisterAfter) {

	public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

	public static final Duration MAX_INTERVAL = Duration.ofHours(1);

	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	public static final Duration MIN_TIMEOUT = Duration.ofMillis(100);

	/** Consul's lower bound for {@code DeregisterCriticalServiceAfter}. */
	public static final Duration MIN_DEREGISTER_AFTER = Duration.ofMinutes(1);

	public static final int MAX_THRESHOLD = 10;

	/**
	 * The lease of an instance whose checks keep it: its prober renews it every quarter
	 * of this, so it outlasts a prober's death and the handover of its checks (seconds)
	 * many times over, and runs out only when no node probes at all.
	 */
	public static final LeaseTtl KEPT_LEASE = LeaseTtl.ofSeconds(60);

	/** Checks an instance may carry. */
	public static final int MAX_PER_INSTANCE = 8;

	private static final int MAX_HEADERS = 16;

	private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}");

	private static final Pattern HEADER_VALUE = Pattern.compile("[\\x20-\\x7E\\t]{0,512}");

	private static final Pattern HOST_PORT = Pattern
		.compile("(\\[[0-9A-Fa-f:.%a-zA-Z]{2,64}\\]|[A-Za-z0-9._-]{1,253}):([0-9]{1,5})");

	private static final Pattern GRPC_SERVICE = Pattern.compile("[A-Za-z0-9._]{0,200}");

	/** Headers a check may not set: they are the HTTP client's to write. */
	private static final List<String> RESERVED_HEADERS = List.of("host", "content-length", "connection",
			"transfer-encoding", "upgrade", "expect", "te", "trailer");

	public CheckDefinition {
		Objects.requireNonNull(kind, "kind");
		Objects.requireNonNull(target, "target");
		headers = Map.copyOf(headers);
	}

	/**
	 * A checked definition.
	 * @param timeout null for the default: 2 s, or half the interval when that is shorter
	 * @throws CheckRefusal naming the field that cannot be honoured
	 */
	public static CheckDefinition of(CheckKind kind, String target, String method, Map<String, List<String>> headers,
			boolean tlsSkipVerify, Duration interval, Duration timeout, int failuresBeforeCritical,
			int successBeforePassing, Duration deregisterAfter) {
		String field = kind.name().toLowerCase(Locale.ROOT);
		if (target == null || target.isEmpty()) {
			throw new CheckRefusal(field, "the target is required");
		}
		String grpcService = "";
		String normalizedTarget = target;
		switch (kind) {
			case HTTP -> normalizedTarget = httpTarget(target);
			case TCP -> hostPort(field, target);
			case GRPC -> {
				int slash = target.indexOf('/');
				normalizedTarget = slash < 0 ? target : target.substring(0, slash);
				grpcService = slash < 0 ? "" : target.substring(slash + 1);
				hostPort(field, normalizedTarget);
				if (!GRPC_SERVICE.matcher(grpcService).matches()) {
					throw new CheckRefusal(field, "the gRPC service after the / must be a dotted name such as "
							+ "my.pkg.Service; got " + quoted(grpcService));
				}
			}
		}
		String checkedMethod = method == null || method.isEmpty() ? "GET" : method;
		if (kind == CheckKind.HTTP && !List.of("GET", "HEAD").contains(checkedMethod)) {
			throw new CheckRefusal("method", "a check only reads: GET or HEAD; got " + quoted(checkedMethod));
		}
		if (kind != CheckKind.HTTP && method != null && !method.isEmpty()) {
			throw new CheckRefusal("method", "only an HTTP check has a method");
		}
		Map<String, List<String>> checkedHeaders = headers == null ? Map.of() : headers;
		headers(kind, checkedHeaders);
		if (interval == null) {
			throw new CheckRefusal("interval", "the interval between probes is required");
		}
		if (interval.compareTo(MIN_INTERVAL) < 0 || interval.compareTo(MAX_INTERVAL) > 0) {
			throw new CheckRefusal("interval", "must be from 1 s to 1 h; got " + shown(interval));
		}
		Duration checkedTimeout = timeout != null ? timeout
				: DEFAULT_TIMEOUT.compareTo(interval.dividedBy(2)) < 0 ? DEFAULT_TIMEOUT : interval.dividedBy(2);
		if (checkedTimeout.compareTo(MIN_TIMEOUT) < 0 || checkedTimeout.compareTo(interval) >= 0) {
			throw new CheckRefusal("timeout",
					"must be at least 100 ms and shorter than the interval (%s), so that a ".formatted(shown(interval))
							+ "probe never overlaps the next; got " + shown(checkedTimeout));
		}
		threshold("failuresBeforeCritical", failuresBeforeCritical);
		threshold("successBeforePassing", successBeforePassing);
		if (deregisterAfter != null && deregisterAfter.compareTo(MIN_DEREGISTER_AFTER) < 0) {
			throw new CheckRefusal("deregisterAfter", "must be at least 1 m; got " + shown(deregisterAfter));
		}
		return new CheckDefinition(kind, normalizedTarget, grpcService, kind == CheckKind.HTTP ? checkedMethod : "",
				checkedHeaders, tlsSkipVerify, interval, checkedTimeout, Math.max(1, failuresBeforeCritical),
				Math.max(1, successBeforePassing), deregisterAfter);
	}

	/** The host the probe connects to, as written in the target. */
	public String host() {
		if (kind == CheckKind.HTTP) {
			String host = URI.create(target).getHost();
			return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
		}
		String host = target.substring(0, target.lastIndexOf(':'));
		return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
	}

	/** The port the probe connects to (an HTTP URL's default port when it names none). */
	public Port port() {
		if (kind == CheckKind.HTTP) {
			URI uri = URI.create(target);
			return Port.of(uri.getPort() != -1 ? uri.getPort() : uri.getScheme().equals("https") ? 443 : 80);
		}
		return Port.of(Integer.parseInt(target.substring(target.lastIndexOf(':') + 1)));
	}

	private static String httpTarget(String target) {
		URI uri;
		try {
			uri = new URI(target);
		}
		catch (URISyntaxException ex) {
			throw new CheckRefusal("http", "must be an absolute http:// or https:// URL; got " + quoted(target));
		}
		String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
		if (!uri.isAbsolute() || !List.of("http", "https").contains(scheme) || uri.getHost() == null
				|| uri.getRawAuthority() == null) {
			throw new CheckRefusal("http",
					"must be an absolute http:// or https:// URL with a host; got " + quoted(target));
		}
		if (uri.getRawUserInfo() != null) {
			throw new CheckRefusal("http", "must not carry credentials (user:password@); send them as a header");
		}
		if (uri.getRawFragment() != null) {
			throw new CheckRefusal("http", "must not carry a #fragment; got " + quoted(target));
		}
		if (uri.getPort() != -1 && !Port.holds(uri.getPort())) {
			throw new CheckRefusal("http", "the port must be " + Port.EXPECTED + "; got " + quoted(target));
		}
		// Non-ASCII characters of the path and query go out percent-encoded (UTF-8), as
		// a browser sends them: an HTTP request line is ASCII.
		String ascii = uri.toASCIIString();
		if (target.length() > 2048 || ascii.length() > 2048) {
			throw new CheckRefusal("http", "must be at most 2048 characters");
		}
		return ascii;
	}

	private static void hostPort(String field, String target) {
		var matched = HOST_PORT.matcher(target);
		if (!matched.matches() || !Port.holds(Long.parseLong(matched.group(2)))) {
			throw new CheckRefusal(field, "must be host:port with a port from " + Port.MIN + " to " + Port.MAX
					+ " ([v6]:port for IPv6); got " + quoted(target));
		}
	}

	private static void headers(CheckKind kind, Map<String, List<String>> headers) {
		if (headers.isEmpty()) {
			return;
		}
		if (kind != CheckKind.HTTP) {
			throw new CheckRefusal("headers", "only an HTTP check sends headers");
		}
		if (headers.size() > MAX_HEADERS) {
			throw new CheckRefusal("headers", "at most %d headers; got %d".formatted(MAX_HEADERS, headers.size()));
		}
		headers.forEach((name, values) -> {
			if (name == null || !HEADER_NAME.matcher(name).matches()
					|| RESERVED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
				throw new CheckRefusal("headers", "header names are HTTP tokens of 1 to 64 characters, and not one of "
						+ RESERVED_HEADERS + "; got " + quoted(name));
			}
			if (values == null || values.isEmpty() || values.size() > 8) {
				throw new CheckRefusal("headers", "header " + name + " needs 1 to 8 values");
			}
			for (String value : values) {
				if (value == null || !HEADER_VALUE.matcher(value).matches()) {
					throw new CheckRefusal("headers",
							"values of header " + name + " are printable ASCII of at most 512 characters");
				}
			}
		});
	}

	private static void threshold(String field, int value) {
		if (value < 0 || value > MAX_THRESHOLD) {
			throw new CheckRefusal(field,
					"must be an integer from 0 to %d (0 counts as 1); got %d".formatted(MAX_THRESHOLD, value));
		}
	}

	private static String shown(Duration duration) {
		return duration.toMillis() % 1000 == 0 && duration.toNanosPart() % 1_000_000 == 0 ? duration.toSeconds() + " s"
				: duration.toNanos() % 1_000_000 == 0 ? duration.toMillis() + " ms" : duration.toNanos() + " ns";
	}

	/**
	 * A refused target or header, quoted: URLs run longer than names, so 60 characters.
	 */
	static String quoted(String value) {
		return Quoted.quote(value, 60);
	}

}

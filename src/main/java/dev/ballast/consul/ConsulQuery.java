package dev.ballast.consul;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.ballast.registry.Tags;
import dev.ballast.registry.ZoneView;
import dev.ballast.web.Quoted;

import org.springframework.http.HttpStatus;

/**
 * The query parameters of a Consul read: a blocking query's {@code index} and
 * {@code wait}, {@code passing}, {@code tag} (with Ballast's zone tag among them),
 * {@code dc}, and Ballast's {@code subscriber}. {@code stale}, {@code consistent} and
 * {@code cached} are accepted and change nothing: every answer is read from the database
 * (or, while it is unreachable, from the node's last known state, marked
 * {@code X-Ballast-Stale}). {@code filter} is refused rather than ignored, since ignoring
 * it would answer more than was asked.
 *
 * @param index the Consul index the client has, 0 when absent
 * @param waitFor how long a blocking query may wait, in the form Ballast's blocking reads
 * take ({@code 1500ms}), or null for their default
 * @param passing whether only passing instances were asked for
 * @param tags the tags asked for ({@code ?tag=a&tag=b}: an instance must carry all of
 * them, compared without case, as Consul 1.x compares them); empty for no filter
 * @param subscriber the polling subscriber's name (Ballast's own parameter), or null
 * @param zone the zone whose view is asked for with the tag {@value #ZONE_TAG}, or null
 * for the flat view
 */
record ConsulQuery(long index, String waitFor, boolean passing, List<String> tags, String subscriber, String zone) {

	/**
	 * How a Consul client asks for its zone's view (docs/locality.md): the query tag
	 * {@code ballast.zone=<zone>}, compared without case as tags are, the one thing every
	 * Consul client can add to a read (Spring Cloud Consul's {@code default-query-tag},
	 * the npm client's {@code tag}). It is taken out of the tags the instances must
	 * carry: no instance can carry a tag under {@value Tags#RESERVED}.
	 */
	static final String ZONE_TAG = Tags.RESERVED + "zone=";

	private static final Pattern INDEX = Pattern.compile("\\d{1,19}");

	/**
	 * @param params the query parameters, the first value of each
	 * @param tags every value of {@code tag}, or null when there is none
	 */
	static ConsulQuery of(Map<String, String> params, String[] tags, String subscriberHeader, ConsulSettings settings) {
		String dc = params.get("dc");
		if (dc != null && !dc.isEmpty() && !dc.equals(settings.datacenter())) {
			throw new ConsulRefusal(HttpStatus.BAD_REQUEST,
					"No path to datacenter: Ballast serves one datacenter, %s; got %s"
						.formatted(Quoted.quote(settings.datacenter()), Quoted.quote(dc)));
		}
		if (params.containsKey("filter")) {
			throw ConsulRefusal.badRequest("filter", "Ballast does not evaluate filter expressions; leave filter out");
		}
		String subscriber = params.get("subscriber");
		List<String> asked = tags == null ? List.of() : List.of(tags);
		return new ConsulQuery(index(params.get("index")), wait(params.get("wait")), flag(params, "passing"),
				asked.stream().filter(tag -> !zoneTag(tag)).toList(),
				subscriber != null ? subscriber : subscriberHeader, zone(asked));
	}

	private static boolean zoneTag(String tag) {
		return tag.regionMatches(true, 0, ZONE_TAG, 0, ZONE_TAG.length());
	}

	/** The zone the tags ask for: at most one, a zone name a registration could carry. */
	private static String zone(List<String> tags) {
		List<String> zones = tags.stream()
			.filter(ConsulQuery::zoneTag)
			.map(tag -> tag.substring(ZONE_TAG.length()))
			.distinct()
			.toList();
		if (zones.size() > 1) {
			throw ConsulRefusal.badRequest("tag", "a read is for one zone; got %s".formatted(
					zones.stream().map(zone -> Quoted.quote(ZONE_TAG + zone)).collect(Collectors.joining(" and "))));
		}
		if (zones.isEmpty()) {
			return null;
		}
		String zone = zones.getFirst();
		if (!ZoneView.named(zone)) {
			throw ConsulRefusal.badRequest("tag", "%s<zone> names a zone of 1 to 63 of A-Z a-z 0-9 . _ -; got %s"
				.formatted(ZONE_TAG, Quoted.quote(ZONE_TAG + zone)));
		}
		return zone;
	}

	private static long index(String value) {
		if (value == null || value.isEmpty()) {
			return 0;
		}
		if (!INDEX.matcher(value).matches()) {
			throw ConsulRefusal.badRequest("index",
					"must be a Consul index, a non-negative integer; got " + Quoted.quote(value));
		}
		try {
			return Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			throw ConsulRefusal.badRequest("index", "must be at most %d; got %s".formatted(Long.MAX_VALUE, value));
		}
	}

	/**
	 * Go's durations ({@code 5s}, {@code 1m30s}); Ballast caps them at its longest wait.
	 */
	private static String wait(String value) {
		if (value == null || value.isEmpty()) {
			return null;
		}
		Duration wait = GoDuration.parse(value);
		if (wait == null) {
			throw ConsulRefusal.badRequest("wait",
					"must be a duration such as 5s, 1m or 1m30s; got " + Quoted.quote(value));
		}
		return Math.min(wait.toMillis(), 999_999_999L) + "ms";
	}

	/**
	 * A flag in Consul's spellings: present without a value ({@code ?passing},
	 * {@code ?passing=}) is true, else Go's booleans ({@code 1}, {@code t}, {@code true},
	 * {@code 0}, {@code f}, {@code false}, any case of the words).
	 */
	static boolean flag(Map<String, String> params, String name) {
		if (!params.containsKey(name)) {
			return false;
		}
		String value = params.get(name);
		if (value == null || value.isEmpty()) {
			return true;
		}
		return switch (value.equals("True") || value.equals("TRUE") || value.equals("False") || value.equals("FALSE")
				? value.toLowerCase(Locale.ROOT) : value) {
			case "1", "t", "T", "true" -> true;
			case "0", "f", "F", "false" -> false;
			default -> throw ConsulRefusal.badRequest(name,
					"must be true or false (or 1, 0, t, f); got " + Quoted.quote(value));
		};
	}

}

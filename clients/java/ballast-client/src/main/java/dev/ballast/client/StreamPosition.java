package dev.ballast.client;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The service revisions a watch stream's event id stands for. A single-service stream's
 * id is that service's revision, such as {@code 42}, followed after a database failover
 * by the history it belongs to ({@code 42@9f3a01c2}); a multiplexed stream's id is the
 * position of the whole stream, such as {@code a:42,b:17@9f3a01c2}. Either way the client
 * sends the id back verbatim; it reads it only to learn the revisions.
 *
 * @param revisions the revision of each service the id names, empty if the id is not one
 * of the two forms
 */
record StreamPosition(Map<String, Long> revisions) {

	StreamPosition {
		revisions = Map.copyOf(revisions);
	}

	/**
	 * @param services the services the stream watches; a plain number is a revision only
	 * when there is one
	 */
	static StreamPosition parse(String id, List<String> services) {
		try {
			if (id.indexOf(':') < 0) {
				return (services.size() == 1) ? new StreamPosition(Map.of(services.get(0), revision(id)))
						: new StreamPosition(Map.of());
			}
			Map<String, Long> revisions = new LinkedHashMap<>();
			for (String pair : id.split(",")) {
				int colon = pair.lastIndexOf(':');
				revisions.put(pair.substring(0, colon), revision(pair.substring(colon + 1)));
			}
			return new StreamPosition(revisions);
		}
		catch (NumberFormatException | IndexOutOfBoundsException ex) {
			return new StreamPosition(Map.of());
		}
	}

	private static long revision(String position) {
		int at = position.indexOf('@');
		String text = at < 0 ? position : position.substring(0, at);
		long revision = Long.parseLong(text);
		if (revision < 0) {
			throw new NumberFormatException("a revision is never negative; got " + text);
		}
		return revision;
	}

}

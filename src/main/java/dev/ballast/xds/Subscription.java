package dev.ballast.xds;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * What one stream subscribed to of one resource type, and what it was sent: the names it
 * asked for last, the responses it has not answered yet (by nonce), and what is due.
 * Guarded by its stream.
 */
final class Subscription {

	/** Responses kept for their ACK or NACK; older ones are superseded anyway. */
	private static final int KEPT = 16;

	private Set<String> names = Set.of();

	private final Map<String, Sent> unanswered = new LinkedHashMap<>();

	private String lastNonce;

	/** Whether a response carrying every name is due (full-state types). */
	private boolean wholeDue;

	/** The names whose resource is due (the other types). */
	private final Set<String> due = new LinkedHashSet<>();

	/**
	 * A response sent and not answered yet.
	 *
	 * @param version its {@code version_info}
	 * @param revisions for endpoints, the revision of each service it carried
	 */
	record Sent(String version, Map<String, Long> revisions) {
	}

	Set<String> names() {
		return names;
	}

	void names(Set<String> asked) {
		names = Set.copyOf(asked);
	}

	/**
	 * Whether {@code nonce} is the last one sent: the request reads the current state.
	 */
	boolean current(String nonce) {
		return nonce.equals(lastNonce);
	}

	/**
	 * The response an answer with {@code nonce} refers to, taken out with every older one
	 * it supersedes; {@code null} when it is unknown (or long superseded).
	 */
	Sent answered(String nonce) {
		if (!unanswered.containsKey(nonce)) {
			return null;
		}
		Iterator<Map.Entry<String, Sent>> older = unanswered.entrySet().iterator();
		while (older.hasNext()) {
			Map.Entry<String, Sent> entry = older.next();
			older.remove();
			if (entry.getKey().equals(nonce)) {
				return entry.getValue();
			}
		}
		throw new IllegalStateException("unreachable: " + nonce + " was held");
	}

	void sent(String nonce, Sent sent) {
		lastNonce = nonce;
		unanswered.put(nonce, sent);
		if (unanswered.size() > KEPT) {
			unanswered.remove(unanswered.keySet().iterator().next());
		}
	}

	void dueWhole() {
		wholeDue = true;
	}

	void due(String name) {
		due.add(name);
	}

	boolean anythingDue() {
		return wholeDue || !due.isEmpty();
	}

	boolean wholeDue() {
		return wholeDue;
	}

	/** Takes what is due: the names due, for a response of the types that carry some. */
	Set<String> takeDue() {
		wholeDue = false;
		Set<String> taken = new LinkedHashSet<>(due);
		due.clear();
		return taken;
	}

}

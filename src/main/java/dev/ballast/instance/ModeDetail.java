package dev.ballast.instance;

import java.time.Instant;
import java.util.List;

/**
 * Why an instance is in its mode, when that ends, and for a completed drain which
 * subscribers never confirmed it.
 *
 * @param reason the operator's reason for maintenance, or null
 * @param until when the registry ends the maintenance by itself, or null
 * @param unconfirmedSubscribers live subscribers that had not acknowledged weight 0 when
 * the drain's confirmation timed out; empty otherwise
 */
public record ModeDetail(String reason, Instant until, List<String> unconfirmedSubscribers) {

	public ModeDetail {
		unconfirmedSubscribers = unconfirmedSubscribers == null ? List.of() : List.copyOf(unconfirmedSubscribers);
		if (reason != null && reason.length() > 512) {
			throw new IllegalArgumentException("reason must be at most 512 characters");
		}
	}

	public static ModeDetail maintenance(String reason, Instant until) {
		return new ModeDetail(reason, until, List.of());
	}

	public static ModeDetail unconfirmed(List<String> subscribers) {
		return subscribers.isEmpty() ? null : new ModeDetail(null, null, subscribers);
	}

}

package dev.ballast.watch;

import java.time.Instant;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The last response an xDS subscriber refused (a NACK): it keeps applying the last one it
 * accepted.
 *
 * @param revision the service revision the refused response carried
 * @param detail the client's error, as it sent it (cut at 1,024 characters)
 * @param at when it was refused
 */
@Schema(name = "SubscriberNack")
record SubscriberNack(@Schema(minimum = "0", example = "42") long revision,
		@Schema(example = "ClusterLoadAssignment demo: sum of locality weights too large") String detail, Instant at) {

	static final int MAX_DETAIL = 1024;

	static SubscriberNack of(long revision, String detail, Instant at) {
		String kept = detail.length() > MAX_DETAIL ? detail.substring(0, MAX_DETAIL) : detail;
		return new SubscriberNack(revision, kept, at);
	}

	static SubscriberNack later(SubscriberNack a, SubscriberNack b) {
		if (a == null) {
			return b;
		}
		return b == null || !b.at().isAfter(a.at()) ? a : b;
	}

}

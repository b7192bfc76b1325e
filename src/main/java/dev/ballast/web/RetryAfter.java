package dev.ballast.web;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The one way a "not now" answer says when to come back: a {@code Retry-After} in whole
 * seconds, drawn anew for every answer so that a crowd of clients refused together does
 * not come back together.
 */
public final class RetryAfter {

	private RetryAfter() {
	}

	/** Seconds from {@code base} to three times it. */
	public static String seconds(long base) {
		return within(base, 3 * base);
	}

	/** Seconds from {@code least} to {@code most}, both included. */
	public static String within(long least, long most) {
		return Long.toString(least + ThreadLocalRandom.current().nextLong(most - least + 1));
	}

}

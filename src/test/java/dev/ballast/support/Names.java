package dev.ballast.support;

import java.util.concurrent.atomic.AtomicInteger;

/** Service names no other test uses, since end-to-end tests share one database. */
public final class Names {

	private static final AtomicInteger next = new AtomicInteger();

	private Names() {
	}

	public static String service(String prefix) {
		return prefix + "-" + ProcessHandle.current().pid() + "-" + next.incrementAndGet();
	}

}

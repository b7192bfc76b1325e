package dev.ballast.watch;

import java.util.Locale;

/** How a subscriber follows a service. */
public enum SubscriberProtocol {

	/** A server-sent event stream ({@code /watch?subscriber=}). */
	SSE,
	/** Blocking queries ({@code ?index=&subscriber=}, Consul's too). */
	POLL,
	/** An xDS stream, named by its node id. */
	XDS;

	/** As the subscriber list and the database write it. */
	String json() {
		return name().toLowerCase(Locale.ROOT);
	}

	static SubscriberProtocol parse(String json) {
		return json == null ? null : valueOf(json.toUpperCase(Locale.ROOT));
	}

}

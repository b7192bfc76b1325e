package dev.ballast.registry;

import java.util.Locale;

/** What a check's probes say, as Consul says it. */
public enum CheckStatus {

	PASSING, WARNING, CRITICAL;

	/** As stored and as Consul spells it: {@code passing}. */
	public String spelled() {
		return name().toLowerCase(Locale.ROOT);
	}

	static CheckStatus spelled(String text) {
		return valueOf(text.toUpperCase(Locale.ROOT));
	}

}

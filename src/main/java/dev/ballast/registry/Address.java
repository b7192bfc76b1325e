package dev.ballast.registry;

import java.util.regex.Pattern;

/**
 * The rule for an instance's address, the one place it is written: a host name or an IP
 * address (IPv6 with or without brackets, with a zone after {@code %}), 1 to
 * {@value #MAX_LENGTH} of the characters {@link #PATTERN} allows. The REST body checks it
 * through its annotations, the Consul-compatible one through {@link #valid}.
 */
public final class Address {

	/** The characters an address may hold, as a bean-validation pattern. */
	public static final String PATTERN = "^[A-Za-z0-9.:_%\\[\\]-]+$";

	public static final int MAX_LENGTH = 253;

	/** What an address must be, as refusals say it. */
	public static final String EXPECTED = "a host name or IP address of 1 to " + MAX_LENGTH + " characters";

	private static final Pattern VALID = Pattern.compile(PATTERN);

	private Address() {
	}

	/** Whether {@code value} is an address. */
	public static boolean valid(String value) {
		return value != null && value.length() <= MAX_LENGTH && VALID.matcher(value).matches();
	}

}

package dev.ballast.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A token's secret: 256 random bits, recognisable by its prefix in logs and secret
 * scanners. Only its SHA-256 is ever stored.
 */
final class Secret {

	static final String PREFIX = "blst_";

	private static final SecureRandom RANDOM = new SecureRandom();

	/** Every request is hashed: a digest per thread, not a provider lookup per call. */
	private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("every Java runtime has SHA-256", ex);
		}
	});

	private Secret() {
	}

	static String generate() {
		byte[] bits = new byte[32];
		RANDOM.nextBytes(bits);
		return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
	}

	static byte[] sha256(String secret) {
		return SHA_256.get().digest(secret.getBytes(StandardCharsets.UTF_8));
	}

}

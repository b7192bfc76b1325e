package dev.ballast.security;

import java.security.MessageDigest;

/**
 * The SHA-256 of a token's secret, as tokens are looked up. Two digests compare in
 * constant time ({@link MessageDigest#isEqual}), so how long a lookup takes tells nothing
 * about how close a guessed secret came; the hash code is the digest's first four bytes,
 * which spread as evenly as the digest does.
 *
 * @param bytes 32 bytes
 */
record SecretDigest(byte[] bytes) {

	static SecretDigest of(String secret) {
		return new SecretDigest(Secret.sha256(secret));
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof SecretDigest digest && MessageDigest.isEqual(bytes, digest.bytes);
	}

	@Override
	public int hashCode() {
		return (bytes[0] & 0xff) << 24 | (bytes[1] & 0xff) << 16 | (bytes[2] & 0xff) << 8 | (bytes[3] & 0xff);
	}

	@Override
	public String toString() {
		return "SecretDigest";
	}

}

package dev.ballast.registry;

/** How the registry probes an instance ({@link CheckDefinition}). */
public enum CheckKind {

	/** An HTTP(S) GET or HEAD: 2xx passing, 429 warning, anything else critical. */
	HTTP,

	/** A TCP connect: accepted passing, refused or timed out critical. */
	TCP,

	/** {@code grpc.health.v1.Health/Check} over plaintext HTTP/2: SERVING passing. */
	GRPC

}

package dev.ballast.xds;

import io.grpc.Status;

/** Ends a stream with a status that says why. */
final class StreamRefusal extends RuntimeException {

	private final transient Status status;

	StreamRefusal(Status status) {
		super(status.getDescription(), null, false, false);
		this.status = status;
	}

	Status status() {
		return status;
	}

}

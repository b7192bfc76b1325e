package dev.ballast.audit;

/** Tells who is making the current request; implemented by the security module. */
public interface Actors {

	/** The actor of the request this thread serves. */
	Actor current();

}

package dev.ballast.registry;

/**
 * What follows every change the write path makes, told of it inside the writer's
 * transaction, right after the service's revision was bumped: the change log, which
 * writes in the same transaction, and caches that apply the change once it commits. One
 * way to hear of every kind of change, called directly rather than through Spring's event
 * multicaster: a group of writes tells it of every one of them on the committer's thread,
 * where publishing an event (its wrapping, listener resolution, reflective calls, a
 * synchronization per transactional listener) cost more than logging the change.
 */
public interface Changed {

	/** An instance was stored or removed. */
	void instance(InstanceChanged change);

	/** A service's settings were stored. */
	default void settings(ServiceChanged change) {
	}

	/** A service was removed, after its instances. */
	default void removed(ServiceRemoved removal) {
	}

}

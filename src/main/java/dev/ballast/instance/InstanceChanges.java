package dev.ballast.instance;

/**
 * What follows every instance change the write path makes, told of it inside the writer's
 * transaction, right after the service's revision was bumped: the change log, which
 * writes in the same transaction, and caches that apply the change once it commits.
 * Called directly rather than through Spring's event multicaster: a group of writes tells
 * it of every one of them on the committer's thread, where publishing an event (its
 * wrapping, listener resolution, reflective calls, a synchronization per transactional
 * listener) cost more than logging the change.
 */
public interface InstanceChanges {

	void changed(InstanceChanged change);

}

package dev.ballast.watch;

import dev.ballast.registry.InstanceList;

/**
 * A service's state as the reader loaded it ({@link ChangeReader#load}), and its
 * position: the revision of that state, in the history of the change at it.
 *
 * @param state the instances and revision
 * @param position the revision and its history
 */
record LoadedService(InstanceList state, Position position) {
}

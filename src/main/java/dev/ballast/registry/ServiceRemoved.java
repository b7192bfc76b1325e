package dev.ballast.registry;

import java.time.Instant;

/**
 * Told to the {@link ChangeLog} inside the transaction that removed a service, after its
 * instances' removals: the last revision of the service under this name until it is
 * registered again.
 *
 * @param service the service
 * @param revision the revision of the removal
 * @param at when it was removed
 */
public record ServiceRemoved(ServiceName service, long revision, Instant at) {
}

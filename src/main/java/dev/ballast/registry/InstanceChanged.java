package dev.ballast.registry;

import java.time.Instant;

/**
 * An instance write, told to the {@link ChangeLog} inside its transaction, after the
 * service revision was bumped: its row commits or rolls back with the change.
 *
 * @param service the service
 * @param revision the new service revision
 * @param id the instance
 * @param instance the instance after the change, or {@code null} when it was removed
 * @param at when the change was made
 */
public record InstanceChanged(ServiceName service, long revision, InstanceId id, InstanceView instance, Instant at) {

	public boolean removed() {
		return instance == null;
	}

}

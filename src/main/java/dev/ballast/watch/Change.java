package dev.ballast.watch;

import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LocalitySetting;
import dev.ballast.registry.LoggedChange;
import dev.ballast.registry.LoggedChange.Kind;

/**
 * One committed revision of a service, as read once from the change log by this node and
 * then shared by every watcher of the service.
 *
 * @param service the service
 * @param position its revision, in the history of the database it was committed in
 * @param kind what changed
 * @param instanceId the instance, for {@link Kind#UPSERT} and {@link Kind#REMOVE}
 * @param instance the instance after an {@link Kind#UPSERT}, otherwise {@code null}
 * @param data the event's JSON, rendered once; {@code null} for {@link Kind#SERVICE}
 * @param locality the service's locality policy after a {@link Kind#SERVICE} change
 * ({@code null} when it is off, and for every other kind)
 */
record Change(String service, Position position, Kind kind, String instanceId, InstanceView instance, String data,
		LocalitySetting locality) {

	Change(String service, Position position, Kind kind, String instanceId, InstanceView instance, String data) {
		this(service, position, kind, instanceId, instance, data, null);
	}

	long revision() {
		return position.revision();
	}

	/** A change this node committed, as the change log handed it over. */
	static Change of(LoggedChange change, long history) {
		return new Change(change.service(), new Position(change.revision(), history), change.kind(),
				change.instanceId(), change.instance(), change.data(), change.locality());
	}

	String eventName() {
		return switch (kind) {
			case UPSERT -> "upsert";
			case REMOVE -> "remove";
			case SERVICE -> null;
			case DELETE -> "delete";
		};
	}

}

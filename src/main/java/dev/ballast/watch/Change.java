package dev.ballast.watch;

import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LocalitySetting;

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

	/** The same change, known to have been committed in {@code history}. */
	Change in(long history) {
		return new Change(service, new Position(position.revision(), history), kind, instanceId, instance, data,
				locality);
	}

	enum Kind {

		/** An instance was registered or changed: an {@code upsert} event. */
		UPSERT,

		/** An instance was removed: a {@code remove} event. */
		REMOVE,

		/**
		 * The service's settings changed. Watchers receive an {@code id:} line without
		 * data, which moves their position (and Last-Event-ID) without dispatching an
		 * event.
		 */
		SERVICE,

		/**
		 * The service was removed, after its instances: a {@code delete} event, the last
		 * of the service until it is registered again under the name.
		 */
		DELETE

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

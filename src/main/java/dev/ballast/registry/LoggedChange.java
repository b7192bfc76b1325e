package dev.ballast.registry;

/**
 * One change as the change log holds it, handed to what this node registered with
 * {@link ChangeLog#onCommitted} once its transaction committed.
 *
 * @param service the service
 * @param revision its revision after the change
 * @param kind what changed
 * @param instanceId the instance, for {@link Kind#UPSERT} and {@link Kind#REMOVE}
 * @param instance the instance after an {@link Kind#UPSERT}, otherwise {@code null}
 * @param data the event's JSON, rendered once; {@code null} for {@link Kind#SERVICE}
 * @param locality the service's locality policy after a {@link Kind#SERVICE} change
 * ({@code null} when it is off, and for every other kind)
 */
public record LoggedChange(String service, long revision, Kind kind, String instanceId, InstanceView instance,
		String data, LocalitySetting locality) {

	/** What changed, as the log's {@code kind} column names it. */
	public enum Kind {

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

}

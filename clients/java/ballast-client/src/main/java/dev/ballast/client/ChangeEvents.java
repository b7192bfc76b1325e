package dev.ballast.client;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Applies the registry's change events to the watched services: {@code snapshot} replaces
 * a service, {@code upsert} adds or replaces an instance, {@code remove} removes one, and
 * an id without data moves the services' revisions. A record that does not match the wire
 * contract exactly, such as an instance whose weight is the string {@code "0"}, is logged
 * and skipped, never applied; events of types this client does not know are ignored, so
 * the registry can add some.
 */
final class ChangeEvents {

	private static final Logger LOG = System.getLogger(ChangeEvents.class.getName());

	private final WatchedServices services;

	ChangeEvents(WatchedServices services) {
		this.services = services;
	}

	void apply(ServerSentEvent event) {
		if (!event.hasData()) {
			moveTo(StreamPosition.parse(event.id(), services.names()), event.id());
			return;
		}
		try {
			switch (event.type()) {
				// Json refuses duplicate keys and trailing text: either could smuggle a
				// second weight past a reader that looks only at the first.
				case "snapshot" -> snapshot(Json.read(event.data()));
				case "upsert" -> upsert(Json.read(event.data()));
				case "remove" -> remove(JsonFields.of(Json.read(event.data())));
				case "delete" -> deleted(JsonFields.of(Json.read(event.data())));
				default ->
					LOG.log(Level.DEBUG, () -> "ignoring event " + event.id() + " of unknown type " + event.type());
			}
		}
		catch (IllegalArgumentException ex) {
			LOG.log(Level.WARNING, () -> "skipped " + event.type() + " event " + event.id() + ": " + ex.getMessage());
		}
	}

	private void moveTo(StreamPosition position, String id) {
		if (position.revisions().isEmpty()) {
			LOG.log(Level.WARNING, () -> "ignoring event id " + id + ": not a position of this stream");
		}
		for (Map.Entry<String, Long> revision : position.revisions().entrySet()) {
			if (services.watches(revision.getKey())) {
				services.moveTo(revision.getKey(), revision.getValue());
			}
		}
	}

	private void snapshot(Object snapshot) {
		JsonFields fields = JsonFields.of(snapshot);
		String service = watched(fields.string("service"));
		long revision = fields.longInteger("revision", 0, Long.MAX_VALUE);
		List<WatchedInstance> instances = new ArrayList<>();
		for (Object element : fields.array("instances")) {
			read(element, service).ifPresent(instances::add);
		}
		services.replace(new WatchedService(service, revision, instances));
	}

	private void upsert(Object instance) {
		read(instance, watched(JsonFields.of(instance).string("service"))).ifPresent(services::upsert);
	}

	private void remove(JsonFields removal) {
		services.remove(watched(removal.string("service")), removal.string("id"),
				removal.longInteger("revision", 0, Long.MAX_VALUE));
	}

	/**
	 * The service was removed; its instances' removals came first, so it is empty at the
	 * removal's revision, where it continues if it is registered again.
	 */
	private void deleted(JsonFields deletion) {
		services.replace(new WatchedService(watched(deletion.string("service")),
				deletion.longInteger("revision", 0, Long.MAX_VALUE), List.of()));
	}

	private Optional<WatchedInstance> read(Object element, String service) {
		try {
			WatchedInstance instance = WatchedInstance.fromJson(element);
			if (!instance.service().equals(service)) {
				throw new IllegalArgumentException("service must be " + service + "; got " + instance.service());
			}
			return Optional.of(instance);
		}
		catch (IllegalArgumentException ex) {
			Object id = (element instanceof Map<?, ?> object) ? object.get("id") : null;
			String named = (id instanceof String string) ? string : JsonFields.describe(id);
			LOG.log(Level.WARNING, () -> "rejected instance " + named + " of " + service + ": " + ex.getMessage());
			return Optional.empty();
		}
	}

	private String watched(String service) {
		if (!services.watches(service)) {
			throw new IllegalArgumentException("service " + service + " is not watched by this client");
		}
		return service;
	}

}

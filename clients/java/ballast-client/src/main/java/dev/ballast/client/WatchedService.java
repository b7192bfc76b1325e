package dev.ballast.client;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * One watched service as of one revision. Immutable: a watch replaces it as a whole on
 * every change, so a reader never sees half of a change.
 *
 * @param name the service name
 * @param revision the last service revision this client applied
 * @param instances the instances as of that revision, ordered by id
 */
public record WatchedService(String name, long revision, List<WatchedInstance> instances) {

	private static final Comparator<WatchedInstance> BY_ID = Comparator.comparing(WatchedInstance::id);

	/**
	 * @throws NullPointerException if {@code name} or {@code instances} is null
	 */
	public WatchedService {
		Objects.requireNonNull(name, "name");
		instances = instances.stream().sorted(BY_ID).toList();
	}

	/** This service after {@code instance} was added or replaced, at its revision. */
	WatchedService with(WatchedInstance instance) {
		List<WatchedInstance> next = new ArrayList<>(instances.size() + 1);
		instances.stream().filter((existing) -> !existing.id().equals(instance.id())).forEach(next::add);
		next.add(instance);
		return new WatchedService(name, instance.revision(), next);
	}

	/** This service after the instance {@code id} was removed at {@code revision}. */
	WatchedService without(String id, long revision) {
		return new WatchedService(name, revision,
				instances.stream().filter((existing) -> !existing.id().equals(id)).toList());
	}

	/** The same instances at a later revision that changed none of them. */
	WatchedService at(long revision) {
		return new WatchedService(name, revision, instances);
	}

}

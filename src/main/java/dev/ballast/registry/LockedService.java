package dev.ballast.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.ballast.web.NotFoundException;
import dev.ballast.weight.CapacityPeak;
import dev.ballast.weight.UnroutableBudget;

/**
 * A service whose row this transaction holds, with the instances it read. Writers of the
 * service wait on the row lock, so what it reads stays current until the transaction
 * ends; the changes it stores replace what it read.
 */
public final class LockedService {

	private final WritePath path;

	private ServiceSettings settings;

	private final Map<InstanceId, Optional<Instance>> read = new HashMap<>();

	private boolean readAll;

	LockedService(WritePath path, ServiceSettings settings) {
		this.path = path;
		this.settings = settings;
	}

	public ServiceName name() {
		return settings.name();
	}

	public ServiceSettings settings() {
		return settings;
	}

	/**
	 * One instance.
	 * @throws NotFoundException when it is not registered
	 */
	public Instance instance(InstanceId id) {
		return find(id).orElseThrow(() -> new NotFoundException(
				"instance %s of service %s is not registered".formatted(id, settings.name())));
	}

	/** One instance, or empty when it is not registered. */
	public Optional<Instance> find(InstanceId id) {
		return read.computeIfAbsent(id, key -> path.lockInstance(settings.name(), key));
	}

	/** Every instance of the service, sorted by id. */
	public List<Instance> instances() {
		if (!readAll) {
			read.clear();
			path.lockAll(settings.name()).forEach(instance -> read.put(instance.id(), Optional.of(instance)));
			readAll = true;
		}
		List<Instance> all = new ArrayList<>();
		read.values().forEach(found -> found.ifPresent(all::add));
		all.sort((a, b) -> a.id().value().compareTo(b.id().value()));
		return all;
	}

	/**
	 * The service's base in the guard's budget now: its capacity (the sum of its
	 * instances' nominal weights), or the highest service-wide peak that still counts
	 * above it ({@link dev.ballast.weight.UnroutableBudget}). The ejection cap counts
	 * against it, as the guard does.
	 */
	public long base() {
		long capacity = instances().stream().mapToLong(instance -> instance.nominalWeight().value()).sum();
		long peak = path.peaks()
			.live(name(), path.now())
			.stream()
			.filter(live -> live.scope().equals(UnroutableBudget.SERVICE))
			.mapToLong(CapacityPeak::capacity)
			.max()
			.orElse(0);
		return Math.max(capacity, peak);
	}

	/** Starts a set of changes, committed together by {@link Changes#commit}. */
	public Changes changes(Guard guard) {
		return new Changes(this, guard);
	}

	/**
	 * Stores new settings under a new revision unless they equal the current ones (a
	 * settings edit takes no weight away, so nothing is guarded), then records what
	 * {@code audit} makes of it; {@link #settings()} returns what is stored.
	 */
	public Committed update(ServiceSettings changed, Audit audit) {
		Objects.requireNonNull(audit, "audit");
		if (!changed.sameSettingsAs(settings)) {
			settings = path.save(changed);
		}
		Committed committed = new Committed(this, Guard.none(), false, Map.of());
		committed.record(audit);
		return committed;
	}

	WritePath path() {
		return path;
	}

	void stored(InstanceId id, Instance instance) {
		read.put(id, Optional.ofNullable(instance));
	}

}

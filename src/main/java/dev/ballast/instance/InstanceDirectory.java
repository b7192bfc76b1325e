package dev.ballast.instance;

import java.util.List;
import java.util.Map;

import dev.ballast.registry.Answer;
import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckRefusal;
import dev.ballast.registry.CheckTargets;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceStore;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.Port;
import dev.ballast.registry.ReportedHealth;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.Tags;
import dev.ballast.registry.WritePath;
import dev.ballast.watch.BlockingQueries;
import dev.ballast.watch.Catalog;
import dev.ballast.watch.CatalogReads;
import dev.ballast.weight.Weight;
import tools.jackson.databind.node.IntNode;

import org.springframework.stereotype.Component;

/**
 * What an entrance other than the REST API (the Consul-compatible one) needs of this
 * module: registrations through the one write path, with values it has typed already; the
 * services an instance id is registered in, since such entrances name instances by id
 * alone; and reads of a service that wait for it when it is not registered yet.
 */
@Component
public class InstanceDirectory {

	private final Registrations registrations;

	private final InstanceQueries queries;

	private final InstanceStore instances;

	private final CatalogReads catalog;

	InstanceDirectory(Registrations registrations, InstanceQueries queries, InstanceStore instances,
			CatalogReads catalog) {
		this.registrations = registrations;
		this.queries = queries;
		this.instances = instances;
		this.catalog = catalog;
	}

	/**
	 * Registers or replaces an instance exactly as {@code PUT
	 * /v1/services/{service}/instances/{id}} does, guard included, but refusing an id
	 * that another service holds (such entrances name instances by id alone), by a rule
	 * that holds under concurrency ({@link WritePath#keepIdInOneService}).
	 * @param weight the typed weight, or null for the service's default
	 * @param metadata labels, checked like the REST API's (no key {@code weight})
	 * @param tags checked already by the entrance ({@link Tags#of}, naming the fields its
	 * way)
	 * @param leaseTtl the lease, or null when the checks keep it
	 * @param health what the registrant reported of its health with the registration
	 * @param checks checks the registry runs, each held to {@link CheckTargets} here
	 * @throws CheckRefusal when a check's target may not be probed
	 * @return the instance as stored, and whether it is new
	 * @throws dev.ballast.web.ConflictException when another service holds the id
	 */
	public Registered register(ServiceName service, InstanceId id, String address, Port port, Weight weight,
			Map<String, String> metadata, Tags tags, LeaseTtl leaseTtl, ReportedHealth health,
			List<CheckDefinition> checks) {
		Registration registration = registrations.register(service, id,
				new RegistrationRequest(address, port, weight == null ? null : IntNode.valueOf(weight.value()), null,
						metadata, tags.values(), leaseTtl, null, null),
				true, health, checks);
		return new Registered(registration.instance(), registration.created());
	}

	/** Removes an instance; not guarded (the instance is leaving). */
	public void deregister(ServiceName service, InstanceId id) {
		registrations.deregister(service, id);
	}

	/** The services in which an instance with this id is registered, sorted by name. */
	public List<ServiceName> servicesHolding(InstanceId id) {
		return instances.servicesHolding(id);
	}

	/**
	 * A service's instances with the revision they are current at, from the database or,
	 * while it is unreachable, from memory (marked stale). A service that is not
	 * registered is an empty list at the revision its name stands at (0, or the last one
	 * it reached before it was removed), for reads that wait for it to appear.
	 */
	public Answer<InstanceList> listOrNone(ServiceName service) {
		return queries.instancesOrNone(service);
	}

	/**
	 * Keeps a state this node applied, which a read answered with
	 * ({@link BlockingQueries#applied}), as the service's last known state: so that the
	 * service is still answered from memory during an outage once the node no longer
	 * follows it, as a read from the database would have been.
	 * @return {@code state}
	 */
	public InstanceList remember(InstanceList state) {
		queries.remember(state);
		return state;
	}

	/**
	 * Every registered service, sorted by name, with its revision, then every removed
	 * name that is not registered again, with no instances and its last revision: so the
	 * sum of the revisions ({@link Catalog#revision()}) rises with every change anywhere,
	 * a removal included. Stale when it is this node's last known list (of registered
	 * services only).
	 */
	public Answer<List<Catalog.Service>> services() {
		return catalog.services();
	}

	/**
	 * Every service's tags, the union over its instances, once each, sorted by code point
	 * (services whose instances carry none are left out); read apart from
	 * {@link #services()}, whose callers mostly need no tags.
	 */
	public Answer<Map<String, List<String>>> tags() {
		return catalog.tags();
	}

	/**
	 * @param instance as stored
	 * @param created whether it is new
	 */
	public record Registered(InstanceView instance, boolean created) {
	}

}

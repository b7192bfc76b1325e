package dev.ballast.registry;

/**
 * What a registrant says of its health in the registration itself (a Consul check's
 * {@code Status}), applied to the registered instance inside the registration's write,
 * under its service's lock: the instance's one revision already carries it, so watchers
 * never see an instance that declared itself down as routable first.
 */
@FunctionalInterface
public interface ReportedHealth {

	/** Nothing reported: the instance registers passing, as every registration does. */
	ReportedHealth PASSING = (service, registered) -> registered;

	/**
	 * @param service the locked service, as the registration found it
	 * @param registered the instance as the registration would store it, passing
	 * @return the instance to store instead
	 */
	Instance applied(LockedService service, Instance registered);

}

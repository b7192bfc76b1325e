package dev.ballast.registry;

import java.util.Map;

/**
 * The releases under way, for the service list ({@link ServiceStore#summaries()}): the
 * release module owns the release table, implements it and registers it at start
 * ({@link ServiceStore#readReleasesWith}).
 */
@FunctionalInterface
public interface ReleasesUnderWay {

	/**
	 * The number of each service's release under way (active or paused; a service has at
	 * most one), by service name; read on the caller's transaction, so inside
	 * {@link Snapshots#read} it sees the snapshot the service list is read from.
	 */
	Map<String, Long> numbers();

}

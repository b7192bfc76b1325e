package dev.ballast.registry;

import java.util.Map;

/**
 * A traffic shift's rule, applied by the write path to every set of changes that moves
 * what a shift shares ({@link Changes}): within the same changes, so a watcher never sees
 * a member's weight that breaks the shift's shares. The release module implements it and
 * registers it at start ({@link WritePath#keepShares}).
 */
public interface ShiftShares {

	/**
	 * Whether a traffic shift is under way in the locked service. Asked on every set of
	 * changes that moves what a shift would share, so it must be cheap (at most one query
	 * per service and transaction).
	 */
	boolean underWay(LockedService service);

	/**
	 * The members whose weights must change for the shift under way to keep its shares
	 * exact, as they must be stored instead; empty when none must.
	 * @param service the locked service
	 * @param before its instances before the changes, by id
	 * @param after its instances as the changes leave them, by id
	 */
	Map<InstanceId, Instance> shares(LockedService service, Map<InstanceId, Instance> before,
			Map<InstanceId, Instance> after);

}

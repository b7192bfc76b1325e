package dev.ballast.audit;

/** What an audit event records, by the code stored and served for it. */
public enum Action {

	/** A registration created an instance. */
	INSTANCE_CREATE("instance.create"),
	/** A registration replaced an instance (or renewed it unchanged). */
	INSTANCE_REPLACE("instance.replace"),
	/** An instance was deregistered. */
	INSTANCE_DEREGISTER("instance.deregister"),
	/** An operator patched an instance's weight, zone or metadata. */
	INSTANCE_EDIT("instance.edit"),
	/** An operator started a drain. */
	INSTANCE_DRAIN("instance.drain"),
	/** An operator brought an instance back to serve. */
	INSTANCE_SERVE("instance.serve"),
	/** An operator put an instance in maintenance. */
	INSTANCE_MAINTENANCE("instance.maintenance"),
	/** The instance reported its own health check failing (Consul's check fail). */
	INSTANCE_CHECK_FAIL("instance.check-fail"),
	/** A check the registry runs turned critical (the registry, by itself). */
	INSTANCE_PROBE_FAIL("instance.probe-fail"),
	/** A check the registry runs passed again and brought its instance back. */
	INSTANCE_PROBE_PASS("instance.probe-pass"),
	/** An operator patched a service's settings. */
	SERVICE_EDIT("service.edit"),
	/**
	 * An operator removed a service (with its instances, when forced); {@code before}
	 * holds its settings and counts.
	 */
	SERVICE_DELETE("service.delete"),
	/** A traffic shift started. */
	RELEASE_START("release.start"),
	/** A traffic shift took its next step (by an operator, or by itself). */
	RELEASE_ADVANCE("release.advance"),
	/** A traffic shift jumped to 100%. */
	RELEASE_PROMOTE("release.promote"),
	/** A traffic shift was aborted and its weights restored. */
	RELEASE_ABORT("release.abort"),
	/** A traffic shift paused because its to group could no longer take traffic. */
	RELEASE_PAUSE("release.pause"),
	/** A lease ran out (the registry, by itself). */
	INSTANCE_EXPIRE("instance.expire"),
	/** An expired instance was removed (the registry, by itself). */
	INSTANCE_REMOVE("instance.remove"),
	/** A weight edit with an end time ended (the registry, by itself). */
	INSTANCE_WEIGHT_REVERT("instance.weight-revert"),
	/** A drain completed (the registry, by itself). */
	INSTANCE_DRAINED("instance.drained"),
	/** A warm-up completed (the registry, by itself). */
	INSTANCE_WARMED("instance.warmed"),
	/** Maintenance with an end time ended (the registry, by itself). */
	INSTANCE_MAINTENANCE_END("instance.maintenance-end"),
	/** A token was created (its secret is never recorded). */
	TOKEN_CREATE("token.create"),
	/** A token was deleted. */
	TOKEN_DELETE("token.delete");

	private final String code;

	Action(String code) {
		this.code = code;
	}

	/** The code stored in the log and served by {@code GET /v1/audit}. */
	public String code() {
		return code;
	}

}

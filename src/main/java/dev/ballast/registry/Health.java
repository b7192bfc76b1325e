package dev.ballast.registry;

/** Whether the instance's lease is being renewed. */
public enum Health {

	/** The lease is current. */
	PASSING,
	/** The lease expired and the instance has not been removed yet. */
	CRITICAL

}

package dev.ballast.support;

/**
 * The admin token of every registry the tests start: given to each node as
 * {@code BALLAST_BOOTSTRAP_ADMIN_TOKEN}, and sent by {@link Api} and {@link EventStream}
 * unless a test says otherwise.
 */
public final class Admin {

	public static final String TOKEN = "blst_test-admin-0123456789abcdefghijklmnopqrstuvwxyz";

	public static final String HEADER = "Bearer " + TOKEN;

	private Admin() {
	}

	/** The property that makes a node create this token, for command lines. */
	public static String bootstrapProperty() {
		return "BALLAST_BOOTSTRAP_ADMIN_TOKEN=" + TOKEN;
	}

}

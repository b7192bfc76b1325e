package dev.ballast.web;

/**
 * The {@code ?force=} parameter of guarded calls whose body cannot carry force: a merge
 * patch (where a {@code force} member would be a field of the resource) and calls without
 * a body.
 */
public final class ForceParameter {

	/** For the OpenAPI description of the parameter. */
	public static final String DESCRIPTION = "true passes the unroutable budget when this call would break it; "
			+ "the call is then audited as forced, logged and counted";

	private ForceParameter() {
	}

	/**
	 * @param value the parameter as sent, or {@code null}
	 * @throws BadParameterException unless absent, {@code true} or {@code false}
	 */
	public static boolean parse(String value) {
		if (value == null || value.equals("false")) {
			return false;
		}
		if (value.equals("true")) {
			return true;
		}
		throw new BadParameterException("force", "force must be true or false; got \"%s\"".formatted(value));
	}

}

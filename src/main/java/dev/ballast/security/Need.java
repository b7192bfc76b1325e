package dev.ballast.security;

/** What a request needs from its caller. */
enum Need {

	NOTHING("no token"),
	/** Any token at all, a scoped reader's too: the call holds no registry data. */
	ANY_TOKEN("a token"),
	/**
	 * A reader of the service in the path; a call without one (a list across services)
	 * needs a token that is not scoped to services.
	 */
	READER("a reader token that may read the service (a reader scoped to services reads only those, and no call "
			+ "across services), or any other role"),
	REGISTRANT("a registrant token whose scope covers the service, or an operator token"),
	/**
	 * A registration whose service is not in the path (Consul's agent endpoints): any
	 * registrant passes here, and the entrance checks the scope against the service it
	 * finds ({@link RegistrantScope}).
	 */
	REGISTRANT_OF_NAMED_SERVICE(
			"a registrant token whose scope covers the service named in the request, or an " + "operator token"),
	OPERATOR("an operator or admin token"), ADMIN("an admin token");

	private final String description;

	Need(String description) {
		this.description = description;
	}

	boolean metBy(Token token, String service) {
		return switch (this) {
			case NOTHING, ANY_TOKEN -> true;
			case READER -> token.role().granted().contains(Role.READER)
					&& (service == null ? !token.readsScoped() : token.readsIn(service));
			case REGISTRANT -> service != null && token.registersIn(service);
			case REGISTRANT_OF_NAMED_SERVICE ->
				token.role().granted().contains(Role.REGISTRANT) || token.role().granted().contains(Role.OPERATOR);
			case OPERATOR -> token.role().granted().contains(Role.OPERATOR);
			case ADMIN -> token.role() == Role.ADMIN;
		};
	}

	String description() {
		return description;
	}

}

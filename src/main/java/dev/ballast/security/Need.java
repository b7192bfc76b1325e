package dev.ballast.security;

/** What a request needs from its caller. */
enum Need {

	NOTHING("no token"), READER("a reader token (or any other role)"),
	REGISTRANT("a registrant token whose scope covers the service, or an operator token"),
	OPERATOR("an operator or admin token"), ADMIN("an admin token");

	private final String description;

	Need(String description) {
		this.description = description;
	}

	boolean metBy(Token token, String service) {
		return switch (this) {
			case NOTHING -> true;
			case READER -> token.role().granted().contains(Role.READER);
			case REGISTRANT -> service != null && token.registersIn(service);
			case OPERATOR -> token.role().granted().contains(Role.OPERATOR);
			case ADMIN -> token.role() == Role.ADMIN;
		};
	}

	String description() {
		return description;
	}

}

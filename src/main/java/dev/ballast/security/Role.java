package dev.ballast.security;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a token may do. {@code admin} ⊃ {@code operator} ⊃ {@code reader}; a
 * {@code registrant} reads and, within its service scope, registers, heartbeats and
 * deregisters.
 */
enum Role {

	READER, REGISTRANT, OPERATOR, ADMIN;

	/** Every role this one includes, itself among them. */
	Set<Role> granted() {
		return switch (this) {
			case READER -> EnumSet.of(READER);
			case REGISTRANT -> EnumSet.of(REGISTRANT, READER);
			case OPERATOR -> EnumSet.of(OPERATOR, READER);
			case ADMIN -> EnumSet.of(ADMIN, OPERATOR, READER);
		};
	}

	/** As written in JSON and in the database. */
	public String json() {
		return name().toLowerCase(Locale.ROOT);
	}

	static Role parse(String json) {
		for (Role role : values()) {
			if (role.json().equals(json)) {
				return role;
			}
		}
		throw new IllegalArgumentException(
				"must be one of reader, registrant, operator, admin; got \"%s\"".formatted(json));
	}

}

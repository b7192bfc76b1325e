package dev.ballast.security;

import dev.ballast.audit.Actor;
import dev.ballast.audit.Actors;

import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;

/** The audit log's actor: the token that authenticated the current request. */
@Component
class CallerActors implements Actors {

	@Override
	public Actor current() {
		return SecurityContextHolder.getContext().getAuthentication() instanceof Caller caller
				? new Actor(caller.token().id().toString(), caller.token().name()) : Actor.ANONYMOUS;
	}

}

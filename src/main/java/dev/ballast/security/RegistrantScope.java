package dev.ballast.security;

import dev.ballast.web.WriteScope;

import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;

/**
 * The scope check of calls whose service is not in their path (Consul's agent endpoints
 * name a service in the body, or an instance by id alone): the access rules let any
 * registrant through, and the entrance asks here once it knows the service.
 */
@Component
public class RegistrantScope implements WriteScope {

	/**
	 * @throws OutOfScopeException when the caller may not register in {@code service}
	 */
	public void require(String service) {
		if (!(SecurityContextHolder.getContext().getAuthentication() instanceof Caller caller)
				|| !caller.token().registersIn(service)) {
			throw new OutOfScopeException("this token may not register in service %s: it needs %s".formatted(service,
					Need.REGISTRANT.description()));
		}
	}

	/** Whether the caller may register in {@code service}. */
	public boolean allows(String service) {
		return SecurityContextHolder.getContext().getAuthentication() instanceof Caller caller
				&& caller.token().registersIn(service);
	}

	@Override
	public boolean mayWrite(String service) {
		return allows(service);
	}

	/** Whether the request carries a token at all. */
	public boolean authenticated() {
		return SecurityContextHolder.getContext().getAuthentication() instanceof Caller;
	}

}

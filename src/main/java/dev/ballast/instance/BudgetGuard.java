package dev.ballast.instance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import dev.ballast.web.GuardBreachException;
import dev.ballast.weight.UnroutableBudget;
import dev.ballast.weight.UnroutableBudget.Breach;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * The guard of the write path: checks a set of changes against the service's unroutable
 * budget, in the service, in each zone and in any further scope, and answers a breach the
 * same way whatever the entrance: a 409 that explains it, or with force a WARN log line
 * and a count in {@code ballast_guard_forced_total}.
 */
@Component
class BudgetGuard {

	private static final Logger log = LoggerFactory.getLogger(BudgetGuard.class);

	private final MeterRegistry meters;

	BudgetGuard(MeterRegistry meters) {
		this.meters = meters;
	}

	/**
	 * @return whether force passed a breach
	 * @throws GuardBreachException on a breach without force
	 */
	boolean check(LockedService service, Set<InstanceId> takenOut, List<UnroutableBudget.Scope> extra, Guard guard) {
		if (takenOut.isEmpty() && extra.isEmpty()) {
			return false;
		}
		Set<String> proposed = takenOut.stream().map(InstanceId::value).collect(Collectors.toSet());
		List<UnroutableBudget.Member> members = service.instances()
			.stream()
			.map(instance -> new UnroutableBudget.Member(instance.id().value(), instance.zone(),
					instance.nominalWeight().value(), instance.heldOut()))
			.toList();
		List<UnroutableBudget.Scope> scopes = new ArrayList<>(UnroutableBudget.scopes(members, proposed));
		scopes.addAll(extra);
		Optional<Breach> found = UnroutableBudget.check(scopes, service.settings().maxUnroutablePercent());
		if (found.isEmpty()) {
			return false;
		}
		String name = service.name().value();
		String detail = explain(name, guard, proposed, found.get());
		if (!guard.force()) {
			throw new GuardBreachException(detail, figures(found.get()));
		}
		// Counted and logged once the write commits: a grouped write may run twice.
		GroupCommit.afterCommit(() -> {
			Counter.builder("ballast.guard.forced")
				.description("Operator actions that overrode the unroutable budget with force")
				.tag("service", name)
				.register(meters)
				.increment();
			log.warn("FORCED past the guard: {}", detail);
		});
		return true;
	}

	private static String explain(String service, Guard guard, Set<String> proposed, Breach breach) {
		String scope = breach.scope().equals("service") ? "service " + service : breach.scope() + " of " + service;
		String subject = proposed.isEmpty() ? "" : " " + String.join(", ", proposed.stream().sorted().toList());
		return ("%s%s would make %s%% of the nominal weight of %s unroutable (limit %d%%, now %s%%); "
				+ "the budget is held by %s. Wait until they serve again, or %s")
			.formatted(guard.action(), subject, breach.resultingPercent(), scope, breach.limitPercent(),
					breach.currentPercent(),
					breach.holders().isEmpty() ? "no instance" : String.join(", ", breach.holders()),
					guard.howToForce());
	}

	private static Map<String, Object> figures(Breach breach) {
		Map<String, Object> figures = new LinkedHashMap<>();
		figures.put("scope", breach.scope());
		figures.put("limitPercent", breach.limitPercent());
		figures.put("currentPercent", breach.currentPercent());
		figures.put("resultingPercent", breach.resultingPercent());
		figures.put("nominalWeight", breach.nominalWeight());
		figures.put("unroutableWeight", breach.unroutableWeight());
		figures.put("resultingWeight", breach.resultingWeight());
		figures.put("holders", breach.holders());
		return figures;
	}

}

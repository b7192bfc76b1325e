package dev.ballast.registry;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ballast.database.Synchronizations;
import dev.ballast.web.GuardBreachException;
import dev.ballast.weight.UnroutableBudget.Breach;
import dev.ballast.weight.UnroutableBudget;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * The guard of the write path: answers a breach of the service's unroutable budget
 * ({@link UnroutableBudget}, judged by {@link Admission}) the same way whatever the
 * entrance: a 409 that explains it, or with force a WARN log line and a count in
 * {@code ballast_guard_forced_total}.
 */
@Component
class BudgetGuard {

	private static final Logger log = LoggerFactory.getLogger(BudgetGuard.class);

	private final MeterRegistry meters;

	BudgetGuard(MeterRegistry meters) {
		this.meters = meters;
	}

	/**
	 * Answers the guard's verdict on a set of changes ({@link Admission}).
	 * @return whether force passed a breach
	 * @throws GuardBreachException on a breach without force
	 */
	boolean answer(LockedService service, Admission admission, Guard guard) {
		if (admission.breach().isEmpty()) {
			return false;
		}
		ServiceSettings settings = service.settings();
		String name = service.name().value();
		String setting = admission.ownBudget() ? "maxUnroutable (now \"%s\")".formatted(settings.maxUnroutable())
				: "maxUnroutablePercent (now %d)".formatted(settings.maxUnroutablePercent());
		Breach breach = admission.breach().get();
		String detail = explain(name, guard, admission.subjects(), breach, setting);
		if (!guard.force()) {
			throw new GuardBreachException(detail, figures(breach));
		}
		// Counted and logged once the write commits: a grouped write may run twice.
		Synchronizations.afterCommit(() -> {
			Counter.builder("ballast.guard.forced")
				.description("Operator actions that overrode the unroutable budget with force")
				.tag("service", name)
				.register(meters)
				.increment();
			log.warn("FORCED past the guard: {}", detail);
		});
		return true;
	}

	/**
	 * What the action would do, what holds the budget and how to get past: wait for the
	 * holders, or, when nothing else holds it, the setting that would admit the action.
	 */
	private static String explain(String service, Guard guard, List<String> subjects, Breach breach, String setting) {
		String scope = breach.scope().equals(UnroutableBudget.SERVICE) ? "service " + service
				: breach.scope() + " of " + service;
		String subject = subjects.isEmpty() ? "" : " " + String.join(", ", subjects.stream().sorted().toList());
		String limit = breach.limit().percent() ? "limit " + breach.limit() : "limit maxUnroutable " + breach.limit();
		String what = "%s%s would make %s%% of the capacity of %s unroutable (%s, now %s%%); ".formatted(guard.action(),
				subject, breach.resultingPercent(), scope, limit, breach.currentPercent());
		if (breach.holdings().isEmpty()) {
			return what + ("nothing else holds the budget: this action alone takes more than it allows. Raise %s with "
					+ "PATCH /v1/services/%s, or %s")
				.formatted(setting, service, guard.howToForce());
		}
		return what + "the budget is held by %s. Wait until they serve again, raise %s, or %s"
			.formatted(String.join(", ", breach.holdings()), setting, guard.howToForce());
	}

	private static Map<String, Object> figures(Breach breach) {
		Map<String, Object> figures = new LinkedHashMap<>();
		figures.put("scope", breach.scope());
		figures.put("maxUnroutable", breach.limit().toString());
		figures.put("limitPercent", breach.limit().percent() ? breach.limit().value() : null);
		figures.put("currentPercent", breach.currentPercent());
		figures.put("resultingPercent", breach.resultingPercent());
		figures.put("nominalWeight", breach.nominalWeight());
		figures.put("unroutableWeight", breach.unroutableWeight());
		figures.put("resultingWeight", breach.resultingWeight());
		figures.put("holders", breach.holders());
		return figures;
	}

}

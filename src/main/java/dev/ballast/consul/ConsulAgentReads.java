package dev.ballast.consul;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.ballast.instance.InstanceDirectory;
import dev.ballast.registry.Answer;
import dev.ballast.registry.Checks;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.StoredCheck;
import dev.ballast.security.RegistrantScope;
import dev.ballast.watch.Catalog;
import dev.ballast.web.Quoted;
import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Consul's agent reads, with Ballast as the one agent every instance is registered with:
 * the services ({@code GET /v1/agent/services}, {@code GET /v1/agent/service/{id}}) and
 * checks ({@code GET /v1/agent/checks}) of every service the token may read, in Consul's
 * shapes. Tools list them before they register, deregister or check ({@code consul
 * services}, the npm client's tests, dashboards). As in every Consul answer that carries
 * a weight, an instance at effective weight 0 is not a listed service; its checks, which
 * carry no weight, are listed whatever its weight. Consul keys both maps by id; an id
 * that several services hold (possible through Ballast's own API) is keyed
 * {@code <service>/<id>} for each of them, a key no Consul id can be. Hidden from
 * Ballast's OpenAPI document, as the other Consul endpoints are.
 */
@Hidden
@RestController
class ConsulAgentReads {

	private final InstanceDirectory directory;

	private final Checks checks;

	private final ConsulSettings settings;

	private final RegistrantScope scope;

	ConsulAgentReads(InstanceDirectory directory, Checks checks, ConsulSettings settings, RegistrantScope scope) {
		this.directory = directory;
		this.checks = checks;
		this.settings = settings;
		this.scope = scope;
	}

	@GetMapping("/v1/agent/services")
	ResponseEntity<Map<String, ConsulShapes.AgentService>> services(@RequestParam Map<String, String> params,
			HttpServletRequest request) {
		ConsulQuery.of(params, null, null, settings);
		ConsulViews views = new ConsulViews(settings, request.getLocalAddr());
		Answer<List<InstanceList>> every = everyService();
		List<InstanceView> routable = every.value()
			.stream()
			.flatMap(state -> state.instances().stream())
			.filter(InstanceView::routable)
			.toList();
		return answer(every, keyed(routable, InstanceView::id, InstanceView::service, views::agentService));
	}

	@GetMapping("/v1/agent/service/{id}")
	ResponseEntity<ConsulShapes.AgentService> service(@PathVariable String id, @RequestParam Map<String, String> params,
			HttpServletRequest request) {
		ConsulQuery.of(params, null, null, settings);
		InstanceId instance = ConsulAgentController.instanceId(id, "service ID");
		String unknown = "unknown service ID: " + id;
		List<ServiceName> holders = directory.servicesHolding(instance);
		if (holders.isEmpty()) {
			throw new ConsulRefusal(HttpStatus.NOT_FOUND, unknown);
		}
		if (holders.size() > 1) {
			throw new ConsulRefusal(HttpStatus.CONFLICT,
					"ID %s is registered in services %s; Consul's endpoints cannot tell which is meant: use ".formatted(
							Quoted.quote(id), holders) + "Ballast's own API, /v1/services/{service}/instances/" + id);
		}
		Answer<InstanceList> state = directory.listOrNone(holders.getFirst());
		InstanceView found = state.value()
			.instances()
			.stream()
			.filter(listed -> listed.id().equals(id))
			.findFirst()
			.orElseThrow(() -> new ConsulRefusal(HttpStatus.NOT_FOUND, unknown));
		if (!found.routable()) {
			throw new ConsulRefusal(HttpStatus.NOT_FOUND,
					"%s: %s of service %s is out of rotation (effective weight 0, mode %s), and Consul's answers list "
						.formatted(unknown, id, found.service(), found.mode())
							+ "no instance at weight 0; its checks are in /v1/agent/checks");
		}
		return ConsulHeaders.indexed(found.revision() + 1, state.stale())
			.body(new ConsulViews(settings, request.getLocalAddr()).agentService(found));
	}

	@GetMapping("/v1/agent/checks")
	ResponseEntity<Map<String, ConsulShapes.Check>> checks(@RequestParam Map<String, String> params,
			HttpServletRequest request) {
		ConsulQuery.of(params, null, null, settings);
		ConsulViews views = new ConsulViews(settings, request.getLocalAddr());
		Answer<List<InstanceList>> every = everyService();
		Map<String, Map<String, List<StoredCheck>>> probed = probed(
				every.value().stream().map(state -> ServiceName.of(state.service())).toList());
		// A check's whole output only to a caller that may write its service.
		List<ConsulShapes.Check> all = every.value()
			.stream()
			.flatMap(state -> views
				.checks(state, probed.getOrDefault(state.service(), Map.of()), scope.allows(state.service()))
				.stream())
			.toList();
		return answer(every, keyed(all, ConsulShapes.Check::checkId, ConsulShapes.Check::serviceName, check -> check));
	}

	/**
	 * Every service with instances, as read now (or, while the database is unreachable,
	 * as last known, marked stale).
	 */
	private Answer<List<InstanceList>> everyService() {
		Answer<List<Catalog.Service>> services = directory.services();
		boolean stale = services.stale();
		List<InstanceList> states = new ArrayList<>();
		for (Catalog.Service service : services.value()) {
			if (service.instances() > 0) {
				Answer<InstanceList> state = directory.listOrNone(ServiceName.of(service.name()));
				stale |= state.stale();
				states.add(state.value());
			}
		}
		return new Answer<>(states, stale);
	}

	/**
	 * The checks Ballast runs, by service and instance id; none while the database is
	 * unreachable (each instance then shows its health alone).
	 */
	private Map<String, Map<String, List<StoredCheck>>> probed(List<ServiceName> services) {
		try {
			return checks.of(services)
				.stream()
				.collect(Collectors.groupingBy(check -> check.service().value(),
						Collectors.groupingBy(check -> check.instanceId().value())));
		}
		catch (DataAccessException ex) {
			return Map.of();
		}
	}

	/**
	 * {@code items} by their id, or by {@code <service>/<id>} for an id that several
	 * services hold, in their order.
	 */
	private static <T, V> Map<String, V> keyed(List<T> items, Function<T, String> id, Function<T, String> service,
			Function<T, V> shown) {
		Map<String, Long> holders = items.stream()
			.collect(Collectors.groupingBy(id, Collectors.mapping(service,
					Collectors.collectingAndThen(Collectors.toSet(), set -> (long) set.size()))));
		Map<String, V> keyed = new LinkedHashMap<>();
		for (T item : items) {
			String key = holders.get(id.apply(item)) > 1 ? service.apply(item) + "/" + id.apply(item) : id.apply(item);
			keyed.put(key, shown.apply(item));
		}
		return keyed;
	}

	/**
	 * At the sum of the listed services' revisions plus one: a change of any of them
	 * moves it.
	 */
	private static <T> ResponseEntity<T> answer(Answer<List<InstanceList>> every, T body) {
		long index = every.value().stream().mapToLong(InstanceList::revision).sum() + 1;
		return ConsulHeaders.indexed(index, every.stale()).body(body);
	}

}

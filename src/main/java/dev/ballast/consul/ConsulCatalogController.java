package dev.ballast.consul;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import dev.ballast.database.Reachability;
import dev.ballast.instance.InstanceDirectory;
import dev.ballast.registry.Answer;
import dev.ballast.registry.Checks;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.StoredCheck;
import dev.ballast.registry.ZoneView;
import dev.ballast.security.RegistrantScope;
import dev.ballast.watch.BlockingQueries;
import dev.ballast.watch.Catalog;
import dev.ballast.watch.CatalogWait;
import dev.ballast.web.Quoted;
import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.dao.DataAccessException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * Consul's read endpoints: the catalog, health, and the status and agent facts clients
 * probe. Every list is a blocking query when given {@code ?index=}. A service's instances
 * are listed in the zone's view the query tag {@value ConsulQuery#ZONE_TAG}{@code <zone>}
 * asks for ({@link ZoneView}), and woken, as a tag query is, by any change of the
 * service. Hidden from Ballast's OpenAPI document, as the agent endpoints are.
 */
@Hidden
@RestController
class ConsulCatalogController {

	/** Ballast's own way for a Consul poller to name itself as a subscriber. */
	static final String SUBSCRIBER = "X-Ballast-Subscriber";

	private final ConsulReads reads;

	private final InstanceDirectory directory;

	private final BlockingQueries blocking;

	private final RegistrantScope scope;

	private final Reachability reachability;

	private final ConsulSettings settings;

	private final Checks checks;

	ConsulCatalogController(ConsulReads reads, InstanceDirectory directory, BlockingQueries blocking,
			RegistrantScope scope, Reachability reachability, ConsulSettings settings, Checks checks) {
		this.checks = checks;
		this.reads = reads;
		this.directory = directory;
		this.blocking = blocking;
		this.scope = scope;
		this.reachability = reachability;
		this.settings = settings;
	}

	/**
	 * This node stands for Consul's leader: with PostgreSQL as the one source of truth,
	 * every node is as good as a leader.
	 */
	@GetMapping("/v1/status/leader")
	ResponseEntity<String> leader(HttpServletRequest request) {
		return ResponseEntity.ok()
			.contentType(MediaType.APPLICATION_JSON)
			.body("\"%s:%d\"".formatted(request.getLocalAddr(), request.getLocalPort()));
	}

	@GetMapping("/v1/agent/self")
	ConsulShapes.AgentSelf self(HttpServletRequest request) {
		return new ConsulShapes.AgentSelf(
				new ConsulShapes.Config(settings.datacenter(), settings.node(), "", true, "", "1.20.0 (Ballast)"),
				new ConsulShapes.Member(settings.node(), request.getLocalAddr(), request.getLocalPort(), Map.of(), 1),
				Map.of());
	}

	@GetMapping("/v1/health/service/{service}")
	DeferredResult<ResponseEntity<List<ConsulShapes.HealthEntry>>> health(@PathVariable String service,
			@RequestParam Map<String, String> params, @RequestHeader(name = SUBSCRIBER, required = false) String named,
			HttpServletRequest request) {
		return read(service, params, named, request, (name, query, views,
				mayWrite) -> state -> views.health(ZoneView.of(state, query.zone()), query, probed(name), mayWrite));
	}

	@GetMapping("/v1/catalog/service/{service}")
	DeferredResult<ResponseEntity<List<ConsulShapes.CatalogEntry>>> catalog(@PathVariable String service,
			@RequestParam Map<String, String> params, @RequestHeader(name = SUBSCRIBER, required = false) String named,
			HttpServletRequest request) {
		return read(service, params, named, request,
				(name, query, views, mayWrite) -> state -> views.catalog(ZoneView.of(state, query.zone()), query));
	}

	@GetMapping("/v1/health/checks/{service}")
	DeferredResult<ResponseEntity<List<ConsulShapes.Check>>> checks(@PathVariable String service,
			@RequestParam Map<String, String> params, @RequestHeader(name = SUBSCRIBER, required = false) String named,
			HttpServletRequest request) {
		return read(service, params, named, request,
				(name, query, views, mayWrite) -> state -> views.checks(state, probed(name), mayWrite));
	}

	/**
	 * A read of one service's instances, as a blocking query when it names an index: what
	 * the request asked, and whether the caller may write the service, asked here on the
	 * request's thread (the answer may be made on another).
	 */
	private <T> DeferredResult<ResponseEntity<List<T>>> read(String service, Map<String, String> params, String named,
			HttpServletRequest request, View<T> view) {
		ConsulQuery query = ConsulQuery.of(params, request.getParameterValues("tag"), named, settings);
		ServiceName name = name(service);
		boolean mayWrite = scope.allows(name.value());
		return reads.read(name, query,
				view.of(name, query, new ConsulViews(settings, request.getLocalAddr()), mayWrite));
	}

	/** How one read renders the service's instances. */
	private interface View<T> {

		Function<InstanceList, List<T>> of(ServiceName name, ConsulQuery query, ConsulViews views, boolean mayWrite);

	}

	/**
	 * The checks Ballast runs on the service's instances, with what their probes last
	 * said, read when the answer is made (a probe's output changes no index). While the
	 * database is unreachable each instance shows its health alone.
	 */
	private Map<String, List<StoredCheck>> probed(ServiceName service) {
		try {
			return checks.of(service)
				.stream()
				.collect(Collectors.groupingBy(check -> check.instanceId().value(), Collectors.toList()));
		}
		catch (DataAccessException ex) {
			return Map.of();
		}
	}

	/**
	 * Every service with at least one instance, each with the tags its instances carry
	 * (once each, sorted; Consul's order is its map's). Its index is the sum of every
	 * service's revision plus one, which rises with every change anywhere (a removed
	 * service counts with its last revision, {@link InstanceDirectory#services()}).
	 * Without a token the list is empty and marked filtered, as Consul answers a token
	 * that may read nothing; Spring Cloud Consul's health indicator asks so. A blocking
	 * query waits as every other does, on the node's one cap of watchers; without a
	 * token, within the smaller share that leaves room for callers with one.
	 */
	@GetMapping("/v1/catalog/services")
	DeferredResult<ResponseEntity<Map<String, List<String>>>> services(@RequestParam Map<String, String> params) {
		ConsulQuery query = ConsulQuery.of(params, null, null, settings);
		boolean anonymous = !scope.authenticated();
		long timeout = blocking.query(null, query.waitFor(), null).timeoutMillis();
		DeferredResult<ResponseEntity<Map<String, List<String>>>> result = new DeferredResult<>(timeout);
		Answer<List<Catalog.Service>> now = directory.services();
		long index = Catalog.revisionOf(now) + 1;
		if (query.index() == 0 || query.index() < index || (query.index() > index && !now.stale())) {
			result.setResult(listed(now, directory::tags, anonymous));
			return result;
		}
		blocking.awaitCatalog(new CatalogWait(query.index() - 1, anonymous,
				catalog -> result.setResult(listed(catalog.services(), catalog::tags, anonymous)),
				() -> result.setResult(listed(now, directory::tags, anonymous)), result));
		return result;
	}

	/**
	 * @param tags read only when the answer lists the services (with a token), after the
	 * services: at worst newer than their index, which the next blocking query then
	 * answers at once; never older
	 */
	private ResponseEntity<Map<String, List<String>>> listed(Answer<List<Catalog.Service>> services,
			Supplier<Answer<Map<String, List<String>>>> tags, boolean anonymous) {
		long index = Catalog.revisionOf(services) + 1;
		if (anonymous) {
			return ConsulHeaders.indexed(index, services.stale() && !reachability.reachable())
				.header(ConsulHeaders.FILTERED, "true")
				.body(Map.of());
		}
		Answer<Map<String, List<String>>> read = tags.get();
		Map<String, List<String>> listed = new TreeMap<>();
		services.value()
			.stream()
			.filter(service -> service.instances() > 0)
			.forEach(service -> listed.put(service.name(), read.value().getOrDefault(service.name(), List.of())));
		return ConsulHeaders.indexed(index, (services.stale() || read.stale()) && !reachability.reachable())
			.body(listed);
	}

	private static ServiceName name(String service) {
		try {
			return ServiceName.of(service);
		}
		catch (RuntimeException ex) {
			throw ConsulRefusal.badRequest("service name", "Ballast service names are lower-case letters, digits and "
					+ "inner hyphens, 1 to 63 characters; got " + Quoted.quote(service));
		}
	}

}

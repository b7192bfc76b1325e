package dev.ballast.consul;

import java.util.List;
import java.util.Map;

import dev.ballast.instance.InstanceDirectory;
import dev.ballast.lease.HealthReports;
import dev.ballast.registry.CheckTargets;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.ReportedHealth;
import dev.ballast.registry.ServiceName;
import dev.ballast.release.Maintenance;
import dev.ballast.security.RegistrantScope;
import dev.ballast.web.Quoted;
import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.http.HttpServletRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Consul's agent endpoints for an instance's own life: register, deregister, report its
 * TTL check, switch maintenance. Each is a write through the registry module's write
 * path, guarded where it can take weight away. Consul names instances by id alone; an id
 * is found in the service that holds it, and the caller's token must cover that service.
 *
 * <p>
 * Hidden from Ballast's OpenAPI document: its shapes are Consul's, and its contract is
 * Consul's documentation plus {@code docs/consul.md}.
 */
@Hidden
@RestController
class ConsulAgentController {

	/** Consul reads bodies leniently; what Ballast uses is typed by the registration. */
	private static final JsonMapper LENIENT = JsonMapper.builder().build();

	private final InstanceDirectory directory;

	private final HealthReports reports;

	private final Maintenance maintenance;

	private final RegistrantScope scope;

	private final CheckTargets targets;

	ConsulAgentController(InstanceDirectory directory, HealthReports reports, Maintenance maintenance,
			RegistrantScope scope, CheckTargets targets) {
		this.directory = directory;
		this.reports = reports;
		this.maintenance = maintenance;
		this.scope = scope;
		this.targets = targets;
	}

	@PutMapping("/v1/agent/service/register")
	ResponseEntity<Void> register(@RequestBody(required = false) byte[] body, HttpServletRequest request) {
		ConsulRegistration registration = ConsulRegistration.read(parse(body), request.getRemoteAddr(), targets);
		scope.require(registration.service().value());
		directory.register(registration.service(), registration.id(), registration.address(), registration.port(),
				registration.weight(), registration.metadata(), registration.tags(), registration.leaseTtl(),
				registration.critical() ? reports::failing : ReportedHealth.PASSING, registration.checks());
		return ResponseEntity.ok().build();
	}

	@PutMapping("/v1/agent/service/deregister/{id}")
	ResponseEntity<Void> deregister(@PathVariable String id) {
		InstanceId instance = instanceId(id, "service ID");
		directory.deregister(holder(instance, unknownService(id)), instance);
		return ResponseEntity.ok().build();
	}

	/**
	 * {@code state} is pass, warn or fail: the access rules serve no other (Consul's
	 * update and deregister are answered "not served" before they get here).
	 */
	@PutMapping("/v1/agent/check/{state}/{check}")
	ResponseEntity<Void> check(@PathVariable String state, @PathVariable String check,
			@RequestParam(required = false) String note) {
		String unknown = "Unknown check ID %s. Ensure that the check ID is passed, not the check name."
			.formatted(Quoted.quote(check));
		if (!check.startsWith("service:") || check.length() == "service:".length()) {
			throw new ConsulRefusal(HttpStatus.NOT_FOUND, unknown + " Ballast's checks are service:<instance id>");
		}
		InstanceId instance = instanceId(check.substring("service:".length()), "check ID");
		ServiceName service = holder(instance, unknown);
		// Ballast has no warning state: a warning keeps the instance routable, as it is
		// in Consul's answers without ?passing, and renews its lease like a pass.
		if (state.equals("fail")) {
			reports.fail(service, instance);
		}
		else {
			reports.pass(service, instance);
		}
		return ResponseEntity.ok().build();
	}

	@PutMapping("/v1/agent/service/maintenance/{id}")
	ResponseEntity<Void> maintenance(@PathVariable String id, @RequestParam(required = false) String enable,
			@RequestParam(required = false) String reason) {
		if (enable == null || enable.isEmpty()) {
			throw ConsulRefusal.badRequest("enable", "Missing value for enable: send ?enable=true or ?enable=false");
		}
		boolean on = ConsulQuery.flag(Map.of("enable", enable), "enable");
		InstanceId instance = instanceId(id, "service ID");
		ServiceName service = holder(instance, unknownService(id));
		if (on) {
			String why = reason == null || reason.isBlank()
					? "Maintenance mode is enabled for this service, but no reason was provided." : reason.strip();
			if (why.length() > 512) {
				throw ConsulRefusal.badRequest("reason", "must be at most 512 characters; got " + why.length());
			}
			maintenance.enable(service, instance, why);
		}
		else {
			maintenance.disable(service, instance);
		}
		return ResponseEntity.ok().build();
	}

	private static JsonNode parse(byte[] body) {
		if (body == null || body.length == 0) {
			throw new ConsulRefusal(HttpStatus.BAD_REQUEST, "Request decode failed: the body is empty; send a service "
					+ "definition such as {\"Name\": \"web\", \"Port\": 8080, \"Check\": {\"TTL\": \"30s\"}}");
		}
		try {
			return LENIENT.readTree(body);
		}
		catch (JacksonException ex) {
			throw new ConsulRefusal(HttpStatus.BAD_REQUEST,
					"Request decode failed: the body is not JSON (" + ex.getOriginalMessage() + ")");
		}
	}

	private static String unknownService(String id) {
		return "Unknown service ID %s. Ensure that the service ID is passed, not the service name."
			.formatted(Quoted.quote(id));
	}

	static InstanceId instanceId(String id, String what) {
		try {
			return InstanceId.of(id);
		}
		catch (RuntimeException ex) {
			throw ConsulRefusal.badRequest(what,
					"Ballast instance ids are 1 to 128 of A-Z a-z 0-9 . _ : -; got " + Quoted.quote(id));
		}
	}

	/**
	 * The service holding the instance, among those the caller may register in.
	 */
	private ServiceName holder(InstanceId id, String unknown) {
		List<ServiceName> holders = directory.servicesHolding(id);
		if (holders.isEmpty()) {
			throw new ConsulRefusal(HttpStatus.NOT_FOUND, unknown);
		}
		List<ServiceName> allowed = holders.stream().filter(service -> scope.allows(service.value())).toList();
		if (allowed.isEmpty()) {
			scope.require(holders.getFirst().value());
		}
		if (allowed.size() > 1) {
			throw new ConsulRefusal(HttpStatus.CONFLICT,
					"ID %s is registered in services %s; Consul's endpoints cannot tell which is meant: use "
						.formatted(Quoted.quote(id.value()), allowed)
							+ "Ballast's own API, /v1/services/{service}/instances/" + id);
		}
		return allowed.getFirst();
	}

}

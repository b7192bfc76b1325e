package dev.ballast.instance;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.audit.AuditTrail;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.JsonMergePatch;
import dev.ballast.web.NotFoundException;
import dev.ballast.web.PreconditionFailedException;
import dev.ballast.web.RequestReader;
import dev.ballast.weight.Weight;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Operator edits: merge patches of instance fields and of service settings. */
@Service
class InstanceEdits {

	private final ServiceStore services;

	private final InstanceStore instances;

	private final WeightFields weights;

	private final RequestReader reader;

	private final ObjectMapper json;

	private final InstanceWrites writes;

	private final ApplicationEventPublisher events;

	private final Clock clock;

	private final WeightOverrides overrides;

	private final AuditTrail audit;

	InstanceEdits(ServiceStore services, InstanceStore instances, WeightFields weights, RequestReader reader,
			ObjectMapper json, InstanceWrites writes, ApplicationEventPublisher events, Clock clock,
			WeightOverrides overrides, AuditTrail audit) {
		this.overrides = overrides;
		this.audit = audit;
		this.services = services;
		this.instances = instances;
		this.weights = weights;
		this.reader = reader;
		this.json = json;
		this.writes = writes;
		this.events = events;
		this.clock = clock;
	}

	/**
	 * Applies a merge patch of {@code weight}, {@code zone} and {@code metadata}.
	 * @param ifMatch the {@code If-Match} header, or {@code null}
	 */
	@Transactional
	Edited<InstanceView> editInstance(ServiceName service, InstanceId id, JsonNode patch, String ifMatch) {
		ServiceSettings settings = lockService(service);
		Instance current = instances.lock(service, id)
			.orElseThrow(
					() -> new NotFoundException("instance %s of service %s is not registered".formatted(id, service)));
		if (ifMatch != null && !Revisions.matches(ifMatch, current.revision())) {
			throw new PreconditionFailedException("instance %s changed since %s; it is now at revision %d".formatted(id,
					ifMatch, current.revision()));
		}
		ObjectNode merged = JsonMergePatch.apply(editable(current), patch);
		InstanceEdit edit = reader.read(merged, InstanceEdit.class);
		List<String> normalized = new ArrayList<>();
		Weight weight = weights.read(edit.weight(), "/weight", settings, id.value(), normalized);
		Metadata metadata = Metadata.of(edit.metadata(), "/metadata");
		Weight effective = Instance.effective(weight, current.mode(), current.ejected(), current.effectiveWeight());
		Instance candidate = new Instance(service, id, current.address(), current.port(), edit.zone(), weight,
				effective, current.mode(), current.detail(), current.health(), current.ejected(), metadata,
				current.leaseTtlSeconds(), current.lastRenewedAt(), current.revision());
		if (edit.until() != null) {
			if (!patch.has("weight")) {
				throw InvalidRequestException.of("/until", "until ends a weight edit; send it with a weight");
			}
			if (!edit.until().isAfter(clock.instant())) {
				throw InvalidRequestException.of("/until", "until must be in the future; got " + edit.until());
			}
		}
		if (patch.has("weight") && !weight.equals(current.weight())) {
			if (edit.until() != null) {
				overrides.put(service, id, current.weight(), edit.until());
			}
			else {
				overrides.clear(service, id);
			}
		}
		InstanceView after = InstanceView.of(candidate.sameRegistrationAs(current) ? current : writes.save(candidate));
		audit.record(AuditEntry.of(Action.INSTANCE_EDIT, service.value(), id.value(), InstanceView.of(current), after)
			.withNormalizations(normalized)
			.withDetail("until", edit.until()));
		return new Edited<>(after, normalized);
	}

	/** Applies a merge patch of the service settings. */
	@Transactional
	Edited<ServiceView> editService(ServiceName service, JsonNode patch) {
		ServiceSettings current = lockService(service);
		ObjectNode merged = JsonMergePatch.apply((ObjectNode) json.valueToTree(SettingsView.of(current)), patch);
		merged.remove(List.of("name", "revision"));
		if (patch.has("name") || patch.has("revision")) {
			String field = patch.has("name") ? "name" : "revision";
			throw InvalidRequestException.of("/" + field, "%s cannot be changed".formatted(field));
		}
		SettingsEdit edit = reader.read(merged, SettingsEdit.class);
		List<String> normalized = new ArrayList<>();
		Weight defaultWeight = weights.read(edit.defaultWeight(), "/defaultWeight", current, "service settings",
				normalized);
		ServiceSettings candidate = new ServiceSettings(service, edit.weightPolicy(), defaultWeight,
				edit.leaseTtlSeconds(), edit.maxUnroutablePercent(), edit.maxEjectionPercent(), current.revision());
		if (candidate.sameSettingsAs(current)) {
			audit.record(AuditEntry
				.of(Action.SERVICE_EDIT, service.value(), null, SettingsView.of(current), SettingsView.of(current))
				.withNormalizations(normalized));
			return new Edited<>(ServiceView.of(current, services.counts(service)), normalized);
		}
		long revision = services.nextRevision(service);
		ServiceSettings stored = new ServiceSettings(service, candidate.weightPolicy(), candidate.defaultWeight(),
				candidate.leaseTtlSeconds(), candidate.maxUnroutablePercent(), candidate.maxEjectionPercent(),
				revision);
		services.update(stored);
		events.publishEvent(new ServiceChanged(service, revision, SettingsView.of(stored), clock.instant()));
		audit.record(AuditEntry
			.of(Action.SERVICE_EDIT, service.value(), null, SettingsView.of(current), SettingsView.of(stored))
			.withNormalizations(normalized));
		return new Edited<>(ServiceView.of(stored, services.counts(service)), normalized);
	}

	private ServiceSettings lockService(ServiceName service) {
		return services.lock(service)
			.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(service)));
	}

	private ObjectNode editable(Instance instance) {
		ObjectNode node = json.createObjectNode();
		node.put("weight", instance.weight().value());
		if (instance.zone() != null) {
			node.put("zone", instance.zone());
		}
		node.set("metadata", json.valueToTree(instance.metadata().entries()));
		return node;
	}

}

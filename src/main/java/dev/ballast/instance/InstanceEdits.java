package dev.ballast.instance;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.registry.Audit;
import dev.ballast.registry.Committed;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Instance;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.Metadata;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ServiceSettings;
import dev.ballast.registry.SettingsView;
import dev.ballast.registry.Tags;
import dev.ballast.registry.WritePath;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.JsonMergePatch;
import dev.ballast.web.PreconditionFailedException;
import dev.ballast.web.RequestReader;
import dev.ballast.weight.MaxUnroutable;
import dev.ballast.weight.ReceivedValue;
import dev.ballast.weight.Weight;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Operator edits: merge patches of instance fields and of service settings. */
@Service
class InstanceEdits {

	private final WritePath path;

	private final WeightFields weights;

	private final RequestReader reader;

	private final ObjectMapper json;

	private final Clock clock;

	private final WeightOverrides overrides;

	InstanceEdits(WritePath path, WeightFields weights, RequestReader reader, ObjectMapper json, Clock clock,
			WeightOverrides overrides) {
		this.path = path;
		this.weights = weights;
		this.reader = reader;
		this.json = json;
		this.clock = clock;
		this.overrides = overrides;
	}

	/**
	 * Applies a merge patch of {@code weight}, {@code zone}, {@code metadata} and
	 * {@code tags}. A weight of 0 on a routable instance is guarded like a drain.
	 * @param ifMatch the {@code If-Match} header, or {@code null}
	 * @param force whether to pass the unroutable budget
	 */
	@Transactional
	Edited<InstanceView> editInstance(ServiceName service, InstanceId id, JsonNode patch, String ifMatch,
			boolean force) {
		LockedService locked = path.lock(service);
		Instance current = locked.instance(id);
		if (ifMatch != null && !Revisions.matches(ifMatch, current.revision())) {
			throw new PreconditionFailedException("instance %s changed since %s; it is now at revision %d".formatted(id,
					ifMatch, current.revision()));
		}
		ObjectNode merged = JsonMergePatch.apply(editable(current), patch);
		InstanceEdit edit = reader.read(merged, InstanceEdit.class);
		List<String> normalized = new ArrayList<>();
		Weight weight = weights.read(edit.weight(), "/weight", locked.settings(), id.value(), normalized);
		Metadata metadata = Metadata.of(edit.metadata(), "/metadata");
		Tags tags = Tags.of(edit.tags(), "/tags", index -> "/tags/" + index);
		if (edit.until() != null) {
			if (!patch.has("weight")) {
				throw InvalidRequestException.of("/until", "until ends a weight edit; send it with a weight");
			}
			if (!edit.until().isAfter(clock.instant())) {
				throw InvalidRequestException.of("/until", "until must be in the future; got " + edit.until());
			}
		}
		Committed committed = locked.changes(Guard.of("editing", force, Guard.FORCE_PARAMETER))
			.put(current, current.edited(edit.zone(), weight, metadata, tags))
			.commit(Audit.of(done -> AuditEntry
				.of(Action.INSTANCE_EDIT, service.value(), id.value(), InstanceView.of(current),
						InstanceView.of(done.stored(id)))
				.withNormalizations(normalized)
				.withDetail("until", edit.until())));
		if (patch.has("weight") && !weight.equals(current.weight())) {
			if (edit.until() != null) {
				overrides.put(service, id, current.weight(), edit.until());
			}
			else {
				overrides.clear(service, id);
			}
		}
		return new Edited<>(InstanceView.of(committed.stored(id)), normalized);
	}

	/** Applies a merge patch of the service settings. */
	@Transactional
	Edited<ServiceView> editService(ServiceName service, JsonNode patch) {
		LockedService locked = path.lock(service);
		ServiceSettings current = locked.settings();
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
		MaxUnroutable limit = maxUnroutable(patch, edit);
		int percent = limit.percent() ? limit.value() : edit.maxUnroutablePercent();
		ServiceSettings changed = new ServiceSettings(service, edit.weightPolicy(), defaultWeight,
				edit.leaseTtlSeconds(), limit, percent, edit.maxEjectionPercent(),
				edit.locality() == null ? null : edit.locality().policy(), current.revision());
		locked.update(changed,
				Audit.of(
						done -> AuditEntry
							.of(Action.SERVICE_EDIT, service.value(), null, SettingsView.of(current),
									SettingsView.of(locked.settings()))
							.withNormalizations(normalized)));
		ServiceSettings stored = locked.settings();
		return new Edited<>(ServiceView.of(stored, path.services().counts(service)), normalized);
	}

	/**
	 * The budget a settings patch asks for: {@code maxUnroutable} as sent, or, when the
	 * patch sets only {@code maxUnroutablePercent} (as clients of earlier versions do),
	 * that percent. Both in one patch must agree when the budget is a percent.
	 */
	private static MaxUnroutable maxUnroutable(JsonNode patch, SettingsEdit edit) {
		if (patch.has("maxUnroutablePercent") && !patch.has("maxUnroutable")) {
			return MaxUnroutable.percentOf(edit.maxUnroutablePercent());
		}
		MaxUnroutable limit = budget(edit.maxUnroutable());
		if (limit.percent() && patch.has("maxUnroutablePercent") && limit.value() != edit.maxUnroutablePercent()) {
			throw InvalidRequestException.of("/maxUnroutablePercent",
					"maxUnroutablePercent %d disagrees with maxUnroutable \"%s\"; send one of them"
						.formatted(edit.maxUnroutablePercent(), limit));
		}
		return limit;
	}

	/**
	 * A budget as sent: a count as a JSON integer, or as the text of earlier versions
	 * ({@code "1"}), or a percent as text ({@code "25%"}); nothing else (not {@code 1.0},
	 * not {@code "25"} with a space).
	 */
	private static MaxUnroutable budget(JsonNode sent) {
		Optional<MaxUnroutable> read = Optional.empty();
		if (sent.isIntegralNumber()) {
			read = sent.canConvertToInt() && sent.intValue() >= 0 && sent.intValue() <= MaxUnroutable.MAX_COUNT
					? Optional.of(MaxUnroutable.count(sent.intValue())) : Optional.empty();
		}
		else if (sent.isString()) {
			read = MaxUnroutable.parse(sent.stringValue());
		}
		return read.orElseThrow(() -> InvalidRequestException.of("/maxUnroutable",
				"maxUnroutable must be %s; got %s".formatted(MaxUnroutable.EXPECTED, ReceivedValue.describe(sent))));
	}

	private ObjectNode editable(Instance instance) {
		ObjectNode node = json.createObjectNode();
		node.put("weight", instance.weight().value());
		if (instance.zone() != null) {
			node.put("zone", instance.zone());
		}
		node.set("metadata", json.valueToTree(instance.metadata().entries()));
		node.set("tags", json.valueToTree(instance.tags().values()));
		return node;
	}

}

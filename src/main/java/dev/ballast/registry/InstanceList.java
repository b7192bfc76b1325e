package dev.ballast.registry;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * All instances of a service at one revision.
 *
 * @param service the service
 * @param revision the service revision the list is current at
 * @param instances the instances, sorted by id
 * @param locality the service's locality policy at that revision, by which
 * {@link ZoneView} computes a zone's weights; {@code null} when it is off or not known to
 * the reader
 */
@Schema(name = "InstanceList")
public record InstanceList(@Schema(example = "payments") String service,
		@Schema(minimum = "0", example = "42") long revision, List<InstanceView> instances,
		@Schema(description = SettingsView.LOCALITY) @JsonInclude(JsonInclude.Include.NON_NULL) LocalitySetting locality) {

	/** The same list with other instances. */
	public InstanceList with(List<InstanceView> others) {
		return new InstanceList(service, revision, others, locality);
	}

}

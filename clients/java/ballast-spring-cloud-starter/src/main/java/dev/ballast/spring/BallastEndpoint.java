package dev.ballast.spring;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ballast.client.WatchedInstance;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/ballast}: this application's registration, and for each service it
 * calls the position of its watch stream (the revision applied), whether the stream is
 * open, and the list the balancer applies (the instances at effective weight 0 apart).
 */
@Endpoint(id = "ballast")
public class BallastEndpoint {

	private final ObjectProvider<BallastRegistration> registration;

	private final BallastWatches watches;

	BallastEndpoint(ObjectProvider<BallastRegistration> registration, BallastWatches watches) {
		this.registration = registration;
		this.watches = watches;
	}

	@ReadOperation
	public Map<String, Object> ballast() {
		Map<String, Object> answer = new LinkedHashMap<>();
		BallastRegistration own = registration.getIfAvailable();
		if (own != null && own.state() != null) {
			answer.put("registration", describe(own.state()));
		}
		answer.put("zone", watches.zone());
		Map<String, Object> services = new LinkedHashMap<>();
		watches.followed().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach((entry) -> {
			BallastWatches.Followed followed = entry.getValue();
			Map<String, Object> service = new LinkedHashMap<>();
			service.put("revision", followed.revision().orElse(null));
			service.put("connected", followed.connected());
			List<WatchedInstance> instances = followed.instances();
			service.put("applied",
					instances.stream()
						.filter(WatchedInstance::receivesTraffic)
						.map(BallastEndpoint::describe)
						.toList());
			service.put("atWeightZero",
					instances.stream()
						.filter((instance) -> !instance.receivesTraffic())
						.map(WatchedInstance::id)
						.toList());
			services.put(entry.getKey(), service);
		});
		answer.put("services", services);
		return answer;
	}

	static Map<String, Object> describe(RegistrationState state) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("service", state.registration().service());
		described.put("id", state.registration().id());
		described.put("address", state.registration().address() + ":" + state.registration().port());
		described.put("phase", state.phase());
		described.put("mode", state.mode());
		described.put("effectiveWeight", state.effectiveWeight());
		described.put("since", state.since().toString());
		if (state.lastError() != null) {
			described.put("lastError", state.lastError());
		}
		return described;
	}

	private static Map<String, Object> describe(WatchedInstance instance) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("id", instance.id());
		described.put("address", instance.address() + ":" + instance.port());
		described.put("zone", instance.zone());
		described.put("effectiveWeight", instance.effectiveWeight());
		described.put("mode", instance.mode());
		return described;
	}

}

package dev.ballast.example.starter;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.server.ResponseStatusException;

/**
 * What the end-to-end check asks the caller: where a batch of calls went, and what the
 * DiscoveryClient sees.
 */
@RestController
class SplitController {

	private static final Log log = LogFactory.getLog(SplitController.class);

	/** A batch is bounded, so that one request cannot keep the caller busy for long. */
	private static final int MAX_CALLS = 10_000;

	private final RestClient backends;

	private final DiscoveryClient discovery;

	SplitController(RestClient.Builder loadBalanced, DiscoveryClient discovery) {
		this.backends = loadBalanced.baseUrl("http://backend").build();
		this.discovery = discovery;
	}

	/**
	 * Makes {@code calls} calls to the backend service one after the other and counts the
	 * answers by the instance that gave them; a call that fails counts as a failure, with
	 * the last error.
	 */
	@GetMapping("/split")
	Split split(@RequestParam(defaultValue = "100") int calls) {
		if (calls < 1 || calls > MAX_CALLS) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"calls must be from 1 to " + MAX_CALLS + "; got " + calls);
		}
		Map<String, Integer> answers = new TreeMap<>();
		int failures = 0;
		String lastError = null;
		for (int i = 0; i < calls; i++) {
			try {
				String instance = backends.get().uri("/").retrieve().body(String.class);
				answers.merge(instance, 1, Integer::sum);
			}
			catch (RestClientException | IllegalStateException ex) {
				failures++;
				lastError = ex.getMessage();
				log.warn("a call to the backend failed: " + ex);
			}
		}
		return new Split(calls, answers, failures, lastError);
	}

	/** The backend instances the DiscoveryClient returns, with their metadata. */
	@GetMapping("/instances")
	List<Map<String, Object>> instances() {
		return discovery.getInstances("backend")
			.stream()
			.map((instance) -> Map.<String, Object>of("id", instance.getInstanceId(), "address",
					instance.getHost() + ":" + instance.getPort(), "metadata", instance.getMetadata()))
			.toList();
	}

	record Split(int calls, Map<String, Integer> answers, int failures, String lastError) {
	}

}

package dev.ballast.watch;

import dev.ballast.registry.ServiceName;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.RequestReader;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import tools.jackson.databind.JsonNode;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "Watch")
class SubscriberController {

	private final Subscribers subscribers;

	private final RequestReader reader;

	SubscriberController(Subscribers subscribers, RequestReader reader) {
		this.subscribers = subscribers;
		this.reader = reader;
	}

	@GetMapping("/v1/services/{service}/subscribers")
	@Operation(operationId = "listSubscribers", summary = "List a service's live subscribers",
			description = "Named watchers and pollers seen within the subscriber TTL, with the revision delivered to "
					+ "each, the revision each acknowledged as applied, and their lag behind the service's revision.")
	@ApiResponse(responseCode = "200", description = "The subscribers, sorted by name")
	SubscriberList list(@PathVariable String service) {
		return subscribers.list(ServiceName.of(service));
	}

	@PostMapping("/v1/services/{service}/subscribers/{subscriber}/ack")
	@Operation(operationId = "acknowledgeRevision", summary = "Acknowledge an applied revision",
			description = "For stream subscribers: the revision (event id) whose state the subscriber has applied. "
					+ "Acknowledgements only move forward; an older one is ignored.",
			requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true,
					content = @Content(schema = @Schema(implementation = Ack.class),
							examples = @ExampleObject(name = "ack",
									description = "The revision the balancer applied (never beyond the service's)",
									value = "{\"revision\":1}"))))
	@ApiResponse(responseCode = "204", description = "Recorded")
	ResponseEntity<Void> ack(@PathVariable String service, @PathVariable String subscriber,
			@RequestBody @Parameter(hidden = true) JsonNode body) {
		ServiceName name = ServiceName.of(service);
		String subscriberName = subscriberName(subscriber);
		Ack ack = reader.read(body, Ack.class);
		long revision = subscribers.list(name).revision();
		if (ack.revision() > revision) {
			throw InvalidRequestException.of("/revision",
					"revision must not be beyond the service's current revision %d; got %d".formatted(revision,
							ack.revision()));
		}
		subscribers.acked(name.value(), subscriberName, ack.revision());
		return ResponseEntity.noContent().build();
	}

	private static String subscriberName(String subscriber) {
		try {
			return QueryParameters.subscriber(subscriber);
		}
		catch (RuntimeException ex) {
			throw InvalidRequestException.of("#subscriber", ex.getMessage());
		}
	}

}

package dev.ballast.security;

import java.net.URI;
import java.util.List;
import java.util.UUID;

import dev.ballast.web.NotFoundException;
import dev.ballast.web.Problem;
import dev.ballast.web.RequestReader;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import tools.jackson.databind.JsonNode;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "Tokens")
class TokenController {

	private final TokenIssuer issuer;

	private final TokenStore store;

	private final Tokens tokens;

	private final RequestReader reader;

	TokenController(TokenIssuer issuer, TokenStore store, Tokens tokens, RequestReader reader) {
		this.issuer = issuer;
		this.store = store;
		this.tokens = tokens;
		this.reader = reader;
	}

	@PostMapping("/v1/tokens")
	@Operation(operationId = "createToken", summary = "Create a token (admin)", description = """
			The answer holds the secret (`token`), shown this once: the registry keeps only its SHA-256. Roles: \
			`admin` ⊃ `operator` ⊃ `reader`; a `registrant` reads, and registers, heartbeats and deregisters in the \
			services its `services` patterns cover (`*` stands for any characters). Works on every node as soon as \
			this answer is sent.""", requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(
			required = true,
			content = @Content(schema = @Schema(implementation = TokenRequest.class), examples = { @ExampleObject(
					name = "registrant for the payments services",
					value = "{\"name\":\"payments deploys\",\"role\":\"registrant\",\"services\":[\"payments-*\"]}"),
					@ExampleObject(name = "a balancer, for a year",
							value = "{\"name\":\"edge balancers\",\"role\":\"reader\",\"expiresAt\":\"2027-11-30T00:00:00Z\"}") })))
	@ApiResponse(responseCode = "201", description = "Created; the only answer that shows the secret")
	ResponseEntity<IssuedToken> create(@RequestBody @Parameter(hidden = true) JsonNode body) {
		IssuedToken issued = issuer.issue(reader.read(body, TokenRequest.class));
		tokens.reload();
		return ResponseEntity.status(HttpStatus.CREATED).location(URI.create("/v1/tokens/" + issued.id())).body(issued);
	}

	@GetMapping("/v1/tokens")
	@Operation(operationId = "listTokens", summary = "List the tokens (admin), oldest first; never their secrets")
	@ApiResponse(responseCode = "200", description = "The tokens")
	List<TokenView> list() {
		return store.listed().stream().map(TokenView::of).toList();
	}

	@GetMapping("/v1/tokens/self")
	@Operation(operationId = "currentToken", summary = "The calling token (any role)", description = """
			Who the caller is: the token's name, role and scope, never its secret. Lets a client (the console) \
			show the role it signed in with and offer only what that role may do.""")
	@ApiResponse(responseCode = "200", description = "The token that made this call")
	TokenView self(Authentication caller) {
		return TokenView.of(((Caller) caller).token());
	}

	@DeleteMapping("/v1/tokens/{id}")
	@Operation(operationId = "deleteToken", summary = "Delete a token (admin)",
			description = "It stops working on every node at once. The last admin token cannot be deleted.")
	@ApiResponse(responseCode = "204", description = "Deleted")
	@ApiResponse(responseCode = "404", description = "No such token",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	@ApiResponse(responseCode = "409", description = "It is the last admin token",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	ResponseEntity<Void> delete(@PathVariable String id) {
		issuer.revoke(uuid(id));
		tokens.reload();
		return ResponseEntity.noContent().build();
	}

	private static UUID uuid(String id) {
		try {
			return UUID.fromString(id);
		}
		catch (IllegalArgumentException ex) {
			throw new NotFoundException("no token \"%s\": token ids are UUIDs".formatted(id));
		}
	}

}

package dev.ballast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

class RegistryRequestsTest {

	private static final URI BASE = URI.create("http://registry:8080");

	private static final Duration TIMEOUT = Duration.ofSeconds(3);

	@Test
	void watchesOneServiceOnItsOwnPath() {
		HttpRequest request = new RegistryRequests(BASE, List.of("payments"), null, null, TIMEOUT, null).watch("");

		assertThat(request.uri()).hasToString("http://registry:8080/v1/services/payments/watch");
		assertThat(request.method()).isEqualTo("GET");
		assertThat(request.headers().firstValue("Accept")).hasValue("text/event-stream");
		assertThat(request.headers().firstValue("Last-Event-ID")).isEmpty();
		assertThat(request.headers().firstValue("Authorization")).isEmpty();
		assertThat(request.timeout()).hasValue(TIMEOUT);
	}

	@Test
	void watchesSeveralServicesOnOneMultiplexedStream() {
		HttpRequest request = new RegistryRequests(BASE, List.of("a", "b"), "checkout", null, TIMEOUT, null)
			.watch("a:42,b:17");

		assertThat(request.uri()).hasToString("http://registry:8080/v1/watch?service=a&service=b&subscriber=checkout");
		assertThat(request.headers().firstValue("Last-Event-ID")).hasValue("a:42,b:17");
	}

	@Test
	void asksForItsZonesViewOnEitherStream() {
		assertThat(new RegistryRequests(BASE, List.of("payments"), null, null, TIMEOUT, "eu-1.a").watch("").uri())
			.hasToString("http://registry:8080/v1/services/payments/watch?zone=eu-1.a");
		assertThat(new RegistryRequests(BASE, List.of("a", "b"), "checkout", null, TIMEOUT, "za").watch("").uri())
			.hasToString("http://registry:8080/v1/watch?service=a&service=b&subscriber=checkout&zone=za");
	}

	@Test
	void keepsAPathInTheBaseAndEncodesNames() {
		RegistryRequests requests = new RegistryRequests(URI.create("https://gateway/registry/"), List.of("pay ments"),
				"check&out", null, TIMEOUT, null);

		assertThat(requests.watch("").uri())
			.hasToString("https://gateway/registry/v1/services/pay%20ments/watch?subscriber=check%26out");
		assertThat(requests.ack("pay ments", 1).uri())
			.hasToString("https://gateway/registry/v1/services/pay%20ments/subscribers/check%26out/ack");
	}

	@Test
	void acknowledgesARevisionAsJson() {
		HttpRequest request = new RegistryRequests(BASE, List.of("payments"), "checkout", "s3cret", TIMEOUT, null)
			.ack("payments", 42);

		assertThat(request.uri()).hasToString("http://registry:8080/v1/services/payments/subscribers/checkout/ack");
		assertThat(request.method()).isEqualTo("POST");
		assertThat(request.headers().firstValue("Content-Type")).hasValue("application/json");
		assertThat(request.headers().firstValue("Authorization")).hasValue("Bearer s3cret");
		assertThat(body(request)).isEqualTo("{\"revision\":42}");
	}

	@Test
	void sendsTheTokenWithTheWatch() {
		HttpRequest request = new RegistryRequests(BASE, List.of("payments"), null, "s3cret", TIMEOUT, null).watch("");

		assertThat(request.headers().firstValue("Authorization")).hasValue("Bearer s3cret");
	}

	private static String body(HttpRequest request) {
		CompletableFuture<String> body = new CompletableFuture<>();
		StringBuilder text = new StringBuilder();
		request.bodyPublisher().orElseThrow().subscribe(new Flow.Subscriber<>() {

			@Override
			public void onSubscribe(Flow.Subscription subscription) {
				subscription.request(Long.MAX_VALUE);
			}

			@Override
			public void onNext(ByteBuffer item) {
				text.append(StandardCharsets.UTF_8.decode(item));
			}

			@Override
			public void onError(Throwable throwable) {
				body.completeExceptionally(throwable);
			}

			@Override
			public void onComplete() {
				body.complete(text.toString());
			}

		});
		return body.join();
	}

}

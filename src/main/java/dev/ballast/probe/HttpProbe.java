package dev.ballast.probe;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import dev.ballast.instance.CheckDefinition;
import dev.ballast.instance.CheckStatus;

/**
 * An HTTP(S) GET or HEAD, judged as Consul judges it: 2xx passing, 429 warning, anything
 * else, or no answer within the timeout, critical. Redirects are not followed (a check
 * may only reach its own instance), and at most {@link #BODY_BYTES} of the body are read
 * into the output; the rest is not read at all.
 */
final class HttpProbe implements Probe {

	static final int BODY_BYTES = 1024;

	private final HttpClient verifying;

	private final HttpClient trusting;

	HttpProbe() {
		this.verifying = client(null);
		this.trusting = client(trustingEveryCertificate());
	}

	@Override
	public ProbeOutcome run(CheckDefinition check) {
		String what = "HTTP " + check.method() + " " + check.target();
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(check.target()))
			.timeout(check.timeout())
			.method(check.method(), HttpRequest.BodyPublishers.noBody())
			.header("User-Agent", "Ballast health check")
			.header("Accept", "text/plain, text/*, */*");
		check.headers().forEach((name, values) -> values.forEach(value -> request.header(name, value)));
		HttpClient client = check.tlsSkipVerify() ? trusting : verifying;
		CompletableFuture<HttpResponse<String>> answer = client.sendAsync(request.build(),
				info -> new Bounded(BODY_BYTES));
		try {
			// The client's own timeout ends the wait for the head; this one also bounds
			// the body.
			HttpResponse<String> response = answer.get(check.timeout().toMillis(), TimeUnit.MILLISECONDS);
			int code = response.statusCode();
			CheckStatus status = code >= 200 && code < 300 ? CheckStatus.PASSING
					: code == 429 ? CheckStatus.WARNING : CheckStatus.CRITICAL;
			String body = response.body();
			return new ProbeOutcome(status, what + ": " + code + (body.isEmpty() ? "" : " Output: " + body));
		}
		catch (TimeoutException ex) {
			answer.cancel(true);
			return ProbeOutcome.critical(what + ": no answer within " + check.timeout().toMillis() + " ms");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof HttpTimeoutException) {
				return ProbeOutcome.critical(what + ": no answer within " + check.timeout().toMillis() + " ms");
			}
			return ProbeOutcome.critical(what + ": " + cause.getClass().getSimpleName()
					+ (cause.getMessage() == null ? "" : " " + cause.getMessage()));
		}
		catch (InterruptedException ex) {
			answer.cancel(true);
			Thread.currentThread().interrupt();
			return ProbeOutcome.critical(what + ": interrupted");
		}
	}

	private static HttpClient client(SSLContext tls) {
		HttpClient.Builder builder = HttpClient.newBuilder()
			.followRedirects(HttpClient.Redirect.NEVER)
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5));
		if (tls != null) {
			builder.sslContext(tls);
		}
		return builder.build();
	}

	private static SSLContext trustingEveryCertificate() {
		try {
			SSLContext context = SSLContext.getInstance("TLS");
			context.init(null, new TrustManager[] { new X509TrustManager() {
				@Override
				public void checkClientTrusted(X509Certificate[] chain, String authType) {
					// A check with TLSSkipVerify asked for no verification.
				}

				@Override
				public void checkServerTrusted(X509Certificate[] chain, String authType) {
					// A check with TLSSkipVerify asked for no verification.
				}

				@Override
				public X509Certificate[] getAcceptedIssuers() {
					return new X509Certificate[0];
				}
			} }, new SecureRandom());
			return context;
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("TLS is not available", ex);
		}
	}

	/**
	 * The start of a body: completes as soon as {@code limit} bytes are in, cancelling
	 * the rest, so that a body that never ends cannot hold the probe.
	 */
	private static final class Bounded implements HttpResponse.BodySubscriber<String> {

		private final CompletableFuture<String> result = new CompletableFuture<>();

		private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

		private final int limit;

		private Flow.Subscription subscription;

		Bounded(int limit) {
			this.limit = limit;
		}

		@Override
		public CompletionStage<String> getBody() {
			return result;
		}

		@Override
		public void onSubscribe(Flow.Subscription subscription) {
			this.subscription = subscription;
			subscription.request(1);
		}

		@Override
		public void onNext(List<ByteBuffer> items) {
			for (ByteBuffer item : items) {
				int take = Math.min(item.remaining(), limit - bytes.size());
				byte[] chunk = new byte[take];
				item.get(chunk);
				bytes.write(chunk, 0, take);
			}
			if (bytes.size() >= limit) {
				subscription.cancel();
				complete();
			}
			else {
				subscription.request(1);
			}
		}

		@Override
		public void onError(Throwable failure) {
			result.completeExceptionally(failure);
		}

		@Override
		public void onComplete() {
			complete();
		}

		private void complete() {
			result.complete(new String(bytes.toByteArray(), StandardCharsets.UTF_8).strip());
		}

	}

}

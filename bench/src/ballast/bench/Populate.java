package ballast.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Registers many instances for the heartbeat benchmark: instance i-K of service bench-(K % S),
 * which is the naming bench/heartbeat.lua renews.
 *
 * BALLAST_TOKEN=... java bench/src/ballast/bench/Populate.java --url http://127.0.0.1:18090 --instances 100000 --services 100 --clients 16
 *
 * BALLAST_TOKEN (environment rather than an option, which ps would show) is the bearer
 * token sent with every registration: registrant for bench-*, operator or admin.
 */
public class Populate {

	public static void main(String[] args) throws Exception {
		BenchArgs options = BenchArgs.parse(args, 0, BenchArgs.defaults("--url", "http://127.0.0.1:8080", "--instances",
				"100000", "--services", "100", "--clients", "16", "--ttl", "300"),
				"usage: BALLAST_TOKEN=... java bench/src/ballast/bench/Populate.java [options]");
		String url = options.url("--url").toString();
		int instances = options.positive("--instances");
		int services = options.positive("--services");
		int clients = options.positive("--clients");
		int ttl = options.positive("--ttl");
		String authorization = BenchArgs.authorization();
		HttpClient http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();
		AtomicInteger next = new AtomicInteger();
		AtomicInteger failures = new AtomicInteger();
		long started = System.nanoTime();
		try (ExecutorService pool = Executors.newFixedThreadPool(clients)) {
			for (int c = 0; c < clients; c++) {
				pool.submit(() -> {
					for (int k = next.getAndIncrement(); k < instances; k = next.getAndIncrement()) {
						String path = "/v1/services/bench-%d/instances/i-%d".formatted(k % services, k);
						String body = "{\"address\":\"127.0.0.1\",\"port\":%d,\"weight\":%d,\"leaseTtlSeconds\":%d}"
							.formatted(1024 + k % 60000, 1 + k % 100, ttl);
						HttpRequest request = HttpRequest.newBuilder(URI.create(url + path))
							.timeout(Duration.ofSeconds(10))
							.header("Content-Type", "application/json")
							.header("Authorization", authorization)
							.PUT(HttpRequest.BodyPublishers.ofString(body))
							.build();
						try {
							HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
							if (response.statusCode() != 201 && response.statusCode() != 200
									&& failures.getAndIncrement() < 3) {
								System.err.printf("PUT %s: %d %s%n", path, response.statusCode(), response.body());
							}
						}
						catch (Exception ex) {
							failures.incrementAndGet();
						}
					}
				});
			}
			pool.shutdown();
			if (!pool.awaitTermination(30, TimeUnit.MINUTES)) {
				throw new IllegalStateException("registration did not finish within 30 minutes");
			}
		}
		double seconds = (System.nanoTime() - started) / 1e9;
		System.out.printf("registered %d instances in %d services with %d clients in %.1f s (%.0f/s), failures %d%n",
				instances, services, clients, seconds, instances / seconds, failures.get());
		System.exit(failures.get() == 0 ? 0 : 1);
	}

}

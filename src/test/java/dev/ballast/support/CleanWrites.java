package dev.ballast.support;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clean registrations into services of their own, sent at the same moment as a hostile
 * request (a barrier releases them together), so that they share the committer's groups
 * with it: each must succeed whatever the hostile one does. One caller never pays for
 * another.
 */
public final class CleanWrites {

	/** Clean registrations sent beside each hostile request. */
	private static final int CLEAN = 4;

	private static final Duration WAIT = Duration.ofSeconds(20);

	private CleanWrites() {
	}

	/**
	 * Sends {@code hostile} and {@value #CLEAN} clean registrations at once, checks that
	 * every clean one was answered 201, and returns the hostile request's answer.
	 * @param api the client of the node under test
	 * @param hostile the request whose answer is returned
	 * @return that answer
	 */
	public static HttpResponse<String> beside(Api api, Supplier<HttpResponse<String>> hostile) {
		CyclicBarrier start = new CyclicBarrier(CLEAN + 1);
		try (ExecutorService threads = Executors.newFixedThreadPool(CLEAN + 1)) {
			List<CompletableFuture<String>> clean = new ArrayList<>();
			for (int i = 0; i < CLEAN; i++) {
				String path = "/v1/services/%s/instances/a".formatted(Names.service("clean"));
				clean.add(CompletableFuture.supplyAsync(() -> {
					await(start);
					HttpResponse<String> answer = api.raw("PUT", path, Registration.at("10.0.0.8", 8080).json(),
							java.util.Map.of("Content-Type", "application/json"), WAIT);
					return answer.statusCode() + " " + path + " " + answer.body();
				}, threads));
			}
			CompletableFuture<HttpResponse<String>> answer = CompletableFuture.supplyAsync(() -> {
				await(start);
				return hostile.get();
			}, threads);
			for (CompletableFuture<String> write : clean) {
				assertThat(write.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS))
					.as("a clean registration sent beside a hostile request")
					.startsWith("201 ");
			}
			return answer.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
			throw new IllegalStateException("a request sent beside a hostile one failed or hung", ex);
		}
	}

	private static void await(CyclicBarrier barrier) {
		try {
			barrier.await(WAIT.toSeconds(), TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("the racers did not meet within " + WAIT, ex);
		}
	}

}

package dev.ballast.consul;

import java.util.ArrayList;
import java.util.List;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.ballast.support.Consul;
import dev.ballast.support.OutageNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tokenless catalog blocking queries cannot use up the waits that callers with a token
 * need: once they fill their own, smaller share of the node's cap, the next tokenless one
 * is refused, and a query with a token still waits and is answered.
 */
class ConsulCatalogCapTest {

	private static final int TOKENLESS = 5;

	/** Tokenless waits beyond their share. */
	private static final int EXTRA = 3;

	/**
	 * On a database of its own: a change anywhere (another test's lease expiring) raises
	 * the catalog's index and answers the waits that fill the share.
	 */
	static OutageNode node;

	static Consul consul;

	@BeforeAll
	static void startNode(@TempDir Path data) throws IOException {
		node = OutageNode.start(data, "ballast.watch.max-watchers=20",
				"ballast.watch.max-tokenless-watchers=" + TOKENLESS);
		consul = Consul.on(node.node().port());
	}

	@AfterAll
	static void stopNode() throws IOException {
		if (node != null) {
			node.close();
		}
	}

	@Test
	void tokenlessCatalogWaitsFillingTheirShareLeaveRoomForATokenedOne() throws Exception {

		long index = consul.as(null).get("/v1/catalog/services").index();
		// A plain client: the refused ones are 503s, which the Consul client's checks
		// refuse.
		try (HttpClient http = HttpClient.newHttpClient()) {
			HttpRequest wait = HttpRequest.newBuilder(URI.create(
					"http://127.0.0.1:%d/v1/catalog/services?index=%d&wait=20s".formatted(node.node().port(), index)))
				.timeout(Duration.ofSeconds(30))
				.build();
			List<CompletableFuture<HttpResponse<String>>> waits = new ArrayList<>();
			for (int i = 0; i < TOKENLESS + EXTRA; i++) {
				waits.add(http.sendAsync(wait, HttpResponse.BodyHandlers.ofString()));
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> waits.stream().filter(CompletableFuture::isDone).count() == EXTRA);
			assertThat(waits.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join))
				.as("the tokenless waits past their share")
				.allMatch(answer -> answer.statusCode() == 503);

			long tokenedIndex = consul.get("/v1/catalog/services").index();
			Consul.Answer tokened = consul.get("/v1/catalog/services?index=" + tokenedIndex + "&wait=1s");

			assertThat(tokened.status()).as(tokened.body()).isEqualTo(200);
			assertThat(tokened.index()).isGreaterThanOrEqualTo(tokenedIndex);
			assertThat(waits.stream().filter(answer -> !answer.isDone())).as("tokenless waits still waiting")
				.hasSize(TOKENLESS);
		}
	}

}

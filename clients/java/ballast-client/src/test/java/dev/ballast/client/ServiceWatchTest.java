package dev.ballast.client;

import static dev.ballast.client.FakeRegistry.status;
import static dev.ballast.client.FakeRegistry.stream;
import static dev.ballast.client.FakeRegistry.streamThenClose;
import static dev.ballast.client.FakeRegistry.streamThenSilence;
import static dev.ballast.client.FakeRegistry.streamWithGap;
import static dev.ballast.client.Wire.event;
import static dev.ballast.client.Wire.idOnly;
import static dev.ballast.client.Wire.instance;
import static dev.ballast.client.Wire.reconnect;
import static dev.ballast.client.Wire.removal;
import static dev.ballast.client.Wire.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ServiceWatchTest {

	private static final Duration PATIENCE = Duration.ofSeconds(10);

	private final FakeRegistry registry = FakeRegistry.start();

	private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private final List<ServiceWatch> watches = new ArrayList<>();

	@AfterEach
	void closeEverything() {
		watches.forEach(ServiceWatch::close);
		// An HttpClient is closed only from Java 21 on; the client supports 17.
		registry.close();
	}

	@Test
	void appliesASnapshotThenUpsertsAndRemoves() {
		List<Long> applied = new CopyOnWriteArrayList<>();
		registry.then(stream(event("snapshot", "42",
				snapshot("payments", 42, instance("payments", "a", 41), instance("payments", "b", 42)))
				+ event("upsert", "43", instance("payments", "c", 43))
				+ event("remove", "44", removal("payments", "a", 44))));

		ServiceWatch watch = started(builder("payments").listener((service) -> applied.add(service.revision())));

		await().atMost(PATIENCE).until(() -> watch.revision("payments").equals(OptionalLong.of(44)));
		assertThat(ids(watch, "payments")).containsExactly("b", "c");
		assertThat(applied).containsExactly(42L, 43L, 44L);
		assertThat(registry.watch(0).target()).isEqualTo("/v1/services/payments/watch");
		assertThat(registry.watch(0).header("Accept")).isEqualTo("text/event-stream");
		assertThat(registry.watch(0).header("Last-Event-ID")).isNull();
	}

	@Test
	void anIdWithoutDataMovesThePositionSentOnReconnect() {
		registry.then(streamThenClose(event("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 42)))
				+ idOnly("45") + reconnect("max-age")));

		ServiceWatch watch = started(builder("payments"));

		await().atMost(PATIENCE).until(() -> registry.watches.size() == 2);
		assertThat(registry.watch(1).header("Last-Event-ID")).isEqualTo("45");
		assertThat(watch.revision("payments")).hasValue(45);
		assertThat(ids(watch, "payments")).containsExactly("a");
	}

	@Test
	void resumesAfterAReconnectEventWithTheLastEventIdAndAppliesWhatWasMissed() {
		registry
			.then(streamThenClose(event("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 42)))
					+ event("upsert", "43", instance("payments", "b", 43)) + reconnect("max-age")))
			.then(stream(event("upsert", "44", instance("payments", "c", 44))));

		ServiceWatch watch = started(builder("payments"));

		await().atMost(PATIENCE).until(() -> watch.revision("payments").equals(OptionalLong.of(44)));
		assertThat(registry.watch(1).header("Last-Event-ID")).isEqualTo("43");
		assertThat(ids(watch, "payments")).containsExactly("a", "b", "c");
	}

	@Test
	void aFreshSnapshotOnResumeDropsInstancesItDoesNotList() {
		registry
			.then(streamThenClose(event("snapshot", "42",
					snapshot("payments", 42, instance("payments", "a", 41), instance("payments", "b", 42)))
					+ reconnect("overflow")))
			.then(stream(event("snapshot", "50", snapshot("payments", 50, instance("payments", "c", 50)))));

		ServiceWatch watch = started(builder("payments"));

		await().atMost(PATIENCE).until(() -> watch.revision("payments").equals(OptionalLong.of(50)));
		assertThat(ids(watch, "payments")).containsExactly("c");
	}

	@Test
	void neverAppliesAnInstanceWhoseWeightIsTheStringZero() {
		registry.then(stream(event("snapshot", "42",
				snapshot("payments", 42, instance("payments", "a", 42), instance("payments", "z", "\"0\"", 42)))
				+ event("upsert", "43", instance("payments", "a", "\"0\"", 43))
				+ event("upsert", "44", instance("payments", "b", "5", 44))));

		ServiceWatch watch = started(builder("payments").balanced());

		await().atMost(PATIENCE).until(() -> watch.revision("payments").equals(OptionalLong.of(44)));
		assertThat(watch.instances("payments")).extracting(WatchedInstance::id, WatchedInstance::weight)
			.containsExactly(tuple("a", 100), tuple("b", 5));
		assertThat(picks(watch.balancer("payments"), 105)).containsOnlyKeys("a", "b");
	}

	@Test
	void retriesAServiceUnavailableAnswerNoSoonerThanItsRetryAfter() {
		registry.then(status(503, Map.of("Retry-After", "1")))
			.then(stream(event("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 42)))));

		ServiceWatch watch = started(builder("payments"));

		await().atMost(PATIENCE).until(() -> watch.revision("payments").isPresent());
		assertThat(Duration.ofNanos(registry.watch(1).atNanos() - registry.watch(0).atNanos()))
			.isGreaterThanOrEqualTo(Duration.ofMillis(1000));
	}

	@Test
	void retriesAnUnknownService() {
		registry.then(status(404, Map.of()))
			.then(stream(event("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 42)))));

		ServiceWatch watch = started(builder("payments"));

		await().atMost(PATIENCE).until(() -> watch.revision("payments").isPresent());
		assertThat(registry.watches).hasSize(2);
	}

	@Test
	void honoursTheRetryFieldAsTheBaseReconnectDelay() {
		registry
			.then(streamThenClose("retry: 1500\n\n"
					+ event("snapshot", "42", snapshot("payments", 42, instance("payments", "a", 42)))))
			.then(stream(""));

		started(builder("payments"));

		await().atMost(PATIENCE).until(() -> registry.watches.size() == 2);
		// 1500 ms spread by ±50%; without the retry field it would be 50 to 150 ms.
		assertThat(Duration.ofNanos(registry.watch(1).atNanos() - registry.watch(0).atNanos()))
			.isGreaterThanOrEqualTo(Duration.ofMillis(750));
	}

	@Test
	void acknowledgesTheLatestAppliedRevisionWithoutOneRequestPerChange() {
		String upserts = LongStream.rangeClosed(43, 60)
			.mapToObj((revision) -> event("upsert", String.valueOf(revision),
					instance("payments", "i" + revision, revision)))
			.collect(Collectors.joining());
		registry.then(stream(event("snapshot", "42", snapshot("payments", 42)) + upserts));

		started(builder("payments").subscriber("checkout"));

		await().atMost(PATIENCE)
			.until(() -> !registry.acks.isEmpty()
					&& registry.acks.get(registry.acks.size() - 1).body().equals("{\"revision\":60}"));
		assertThat(registry.acks).extracting(FakeRegistry.Request::target)
			.containsOnly("/v1/services/payments/subscribers/checkout/ack");
		assertThat(registry.acks).hasSizeLessThan(19);
		assertThat(registry.watch(0).target()).isEqualTo("/v1/services/payments/watch?subscriber=checkout");
	}

	@Test
	void acknowledgesAnIdWithoutData() {
		registry.then(stream(event("snapshot", "42", snapshot("payments", 42)) + idOnly("45")));

		started(builder("payments").subscriber("checkout"));

		await().atMost(PATIENCE)
			.until(() -> !registry.acks.isEmpty()
					&& registry.acks.get(registry.acks.size() - 1).body().equals("{\"revision\":45}"));
	}

	@Test
	void anAnonymousWatchNeverAcknowledges() {
		registry.then(stream(event("snapshot", "42", snapshot("payments", 42)) + idOnly("45"))).then(stream(""));

		ServiceWatch watch = started(builder("payments"));

		await().atMost(PATIENCE).until(() -> watch.revision("payments").equals(OptionalLong.of(45)));
		assertThat(registry.acks).isEmpty();
		assertThat(registry.watch(0).target()).doesNotContain("subscriber");
	}

	@Test
	void sendsTheTokenWithWatchesAndAcknowledgements() {
		registry.then(stream(event("snapshot", "42", snapshot("payments", 42))));

		started(builder("payments").subscriber("checkout").token("s3cret"));

		await().atMost(PATIENCE).until(() -> !registry.acks.isEmpty());
		assertThat(registry.watch(0).header("Authorization")).isEqualTo("Bearer s3cret");
		assertThat(registry.acks.get(0).header("Authorization")).isEqualTo("Bearer s3cret");
	}

	@Test
	void sendsAMultiplexedPositionBackVerbatim() {
		registry
			.then(streamThenClose(event("snapshot", "a:42,b:17", snapshot("a", 42, instance("a", "a1", 42)))
					+ event("snapshot", "a:42,b:17", snapshot("b", 17, instance("b", "b1", 17))) + idOnly("a:42,b:18")
					+ reconnect("shutdown")))
			.then(stream(event("upsert", "a:43,b:18", instance("a", "a2", 43))));

		ServiceWatch watch = started(builder("a", "b"));

		await().atMost(PATIENCE).until(() -> watch.revision("a").equals(OptionalLong.of(43)));
		assertThat(registry.watch(0).target()).isEqualTo("/v1/watch?service=a&service=b");
		assertThat(registry.watch(1).header("Last-Event-ID")).isEqualTo("a:42,b:18");
		assertThat(watch.revision("b")).hasValue(18);
		assertThat(ids(watch, "a")).containsExactly("a1", "a2");
		assertThat(ids(watch, "b")).containsExactly("b1");
	}

	@Test
	void reopensAStreamOnWhichNothingArrivesForTheIdleTimeout() {
		registry.then(streamThenSilence(event("snapshot", "42", snapshot("payments", 42))))
			.then(stream(event("upsert", "43", instance("payments", "a", 43))));

		ServiceWatch watch = started(builder("payments").idleTimeout(Duration.ofMillis(300)));

		await().atMost(PATIENCE).until(() -> watch.revision("payments").equals(OptionalLong.of(43)));
		assertThat(registry.watch(1).header("Last-Event-ID")).isEqualTo("42");
	}

	@Test
	void keepalivesKeepAStreamOpenPastTheIdleTimeout() {
		registry.then(streamWithGap(event("snapshot", "42", snapshot("payments", 42)), Duration.ofSeconds(1),
				event("upsert", "43", instance("payments", "a", 43))));

		ServiceWatch watch = started(builder("payments").idleTimeout(Duration.ofMillis(300)));

		await().atMost(PATIENCE).until(() -> watch.revision("payments").equals(OptionalLong.of(43)));
		assertThat(registry.watches).hasSize(1);
	}

	@Test
	void aFailingListenerNeitherStopsTheWatchNorUndoesTheChange() {
		registry.then(stream(event("snapshot", "42", snapshot("payments", 42))
				+ event("upsert", "43", instance("payments", "a", 43))));

		ServiceWatch watch = started(builder("payments").listener((service) -> {
			throw new IllegalStateException("listener bug");
		}));

		await().atMost(PATIENCE).until(() -> watch.revision("payments").equals(OptionalLong.of(43)));
		assertThat(ids(watch, "payments")).containsExactly("a");
	}

	@Test
	void closeEndsTheStreamPromptly() {
		ServiceWatch watch = started(builder("payments"));
		await().atMost(PATIENCE).until(() -> registry.openStreams() == 1);

		assertTimeoutPreemptively(Duration.ofSeconds(2), watch::close);

		await().atMost(PATIENCE).until(() -> registry.openStreams() == 0);
		assertThatIllegalStateException().isThrownBy(watch::start);
	}

	@Test
	void closeEndsAWatchWaitingToReconnect() {
		registry.then(status(503, Map.of("Retry-After", "300")));
		ServiceWatch watch = started(builder("payments"));
		await().atMost(PATIENCE).until(() -> registry.watches.size() == 1);

		assertTimeoutPreemptively(Duration.ofSeconds(2), watch::close);
	}

	@Test
	void knowsNothingOfAServiceBeforeItsFirstSnapshot() {
		ServiceWatch watch = builder("payments").build();
		watches.add(watch);

		assertThat(watch.instances("payments")).isEmpty();
		assertThat(watch.revision("payments")).isEmpty();
		assertThat(watch.service("payments")).isEmpty();
	}

	@Test
	void refusesQuestionsAboutServicesItDoesNotWatch() {
		ServiceWatch watch = builder("payments").build();
		watches.add(watch);

		assertThatIllegalArgumentException().isThrownBy(() -> watch.instances("orders"))
			.withMessage("service orders is not watched; this watch follows [payments]");
	}

	@Test
	void hasNoBalancerUnlessBuiltBalanced() {
		ServiceWatch watch = builder("payments").build();
		watches.add(watch);

		assertThatIllegalStateException().isThrownBy(() -> watch.balancer("payments"));
	}

	@Test
	void needsAtLeastOneService() {
		assertThatIllegalStateException().isThrownBy(() -> ServiceWatch.builder(registry.base(), client).build())
			.withMessage("a watch needs at least one service");
	}

	@Test
	void refusesATimeoutThatIsNotPositive() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ServiceWatch.builder(registry.base(), client).idleTimeout(Duration.ZERO))
			.withMessage("idleTimeout must be a positive duration; got PT0S");
	}

	@Test
	void refusesATokenThatCannotBeAHeaderValue() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ServiceWatch.builder(registry.base(), client).token("s3cret\r\nX-Admin: yes"))
			.withMessage("token must be printable ASCII without spaces");
	}

	@Test
	void refusesAZoneNoInstanceCouldBeIn() {
		for (String zone : new String[] { null, "", "a b", "z".repeat(64), "a\u0000b", "é" }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> ServiceWatch.builder(registry.base(), client).zone(zone))
				.withMessageStartingWith("zone must be 1 to 63 of A-Z a-z 0-9 . _ -");
		}
	}

	private ServiceWatch.Builder builder(String... services) {
		return ServiceWatch.builder(registry.base(), client).services(services).connectTimeout(Duration.ofSeconds(5));
	}

	private ServiceWatch started(ServiceWatch.Builder builder) {
		ServiceWatch watch = builder.build();
		watches.add(watch);
		watch.start();
		return watch;
	}

	private static List<String> ids(ServiceWatch watch, String service) {
		return watch.instances(service).stream().map(WatchedInstance::id).toList();
	}

	private static Map<String, Long> picks(SmoothWeightedBalancer balancer, int count) {
		return LongStream.range(0, count)
			.mapToObj((i) -> balancer.pick().orElseThrow().id())
			.collect(Collectors.groupingBy((id) -> id, Collectors.counting()));
	}

}

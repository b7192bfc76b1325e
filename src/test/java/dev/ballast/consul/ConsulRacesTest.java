package dev.ballast.consul;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Consul;
import dev.ballast.support.EventStream;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Consul registrations that race, released together by a barrier so that they really
 * meet: the rule that an id lives in one service, and a registration that reports itself
 * critical while a watcher opens its stream.
 */
@RegistryTest
class ConsulRacesTest extends ConsulFixture {

	private static final Duration SOON = Duration.ofSeconds(10);

	private static final int RACERS = 6;

	private final ExecutorService racers = Executors.newFixedThreadPool(RACERS);

	ConsulRacesTest() {
		super("cnr");
	}

	@AfterEach
	void stopRacers() {
		racers.shutdownNow();
	}

	@Test
	void oneIdRegisteredUnderSixNamesAtOnceLandsInOneServiceAndTheOthersAreRefusedNamingIt() throws Exception {
		for (int trial = 0; trial < 5; trial++) {
			String id = "dup" + trial + "." + service;
			CyclicBarrier start = new CyclicBarrier(RACERS);
			List<Future<Consul.Answer>> answers = new ArrayList<>();
			for (int racer = 0; racer < RACERS; racer++) {
				String name = service + "-" + trial + "-" + racer;
				String body = "{\"ID\":\"%s\",\"Name\":\"%s\",\"Address\":\"10.0.0.1\",\"Port\":8080,\"Check\":{\"TTL\":\"30s\"}}"
					.formatted(id, name);
				answers.add(racers.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					return consul.put("/v1/agent/service/register", body);
				}));
			}
			List<String> winners = new ArrayList<>();
			List<Consul.Answer> refused = new ArrayList<>();
			for (int racer = 0; racer < RACERS; racer++) {
				Consul.Answer answer = answers.get(racer).get(30, TimeUnit.SECONDS);
				if (answer.status() == 200) {
					winners.add(service + "-" + trial + "-" + racer);
				}
				else {
					refused.add(answer);
				}
			}

			assertThat(winners).as("trial %d: one racer registers %s", trial, id).hasSize(1);
			for (Consul.Answer answer : refused) {
				assertThat(answer.status()).as(answer.body()).isEqualTo(409);
				assertThat(answer.body()).contains(id).contains(winners.getFirst());
			}
			assertThat(consul.put("/v1/agent/check/pass/service:" + id).status()).isEqualTo(200);
			for (int racer = 0; racer < RACERS; racer++) {
				String name = service + "-" + trial + "-" + racer;
				assertThat(api.get("/v1/services/" + name).status()).as("service %s", name)
					.isEqualTo(name.equals(winners.getFirst()) ? 200 : 404);
			}
		}
	}

	@Test
	void aRegistrationThatReportsItselfCriticalIsNeverSeenRoutable() throws Exception {
		for (int trial = 0; trial < 3; trial++) {
			String ownService = service + "-" + trial;
			// Five passing instances of 100: 20% of 600 lets the sixth, critical, be
			// ejected.
			for (String name : List.of("a", "b", "c", "d", "e")) {
				assertThat(consul.put("/v1/agent/service/register", checked(ownService, name, "")).status())
					.isEqualTo(200);
			}
			String critical = "down." + ownService;
			CyclicBarrier start = new CyclicBarrier(2);
			Future<EventStream> opened = racers.submit(() -> {
				start.await(10, TimeUnit.SECONDS);
				return EventStream.open(port, "/v1/services/%s/watch".formatted(ownService), null);
			});
			start.await(10, TimeUnit.SECONDS);
			Consul.Answer registered = consul.put("/v1/agent/service/register",
					checked(ownService, "down", ",\"Status\":\"critical\""));
			assertThat(registered.status()).as(registered.body()).isEqualTo(200);

			try (EventStream stream = opened.get(30, TimeUnit.SECONDS)) {
				List<JsonNode> seen = new ArrayList<>();
				for (Event event = stream.nextEvent(SOON); event != null; event = stream
					.eventWithin(Duration.ofSeconds(1))) {
					if (event.name().equals("snapshot")) {
						event.json().get("instances").forEach(instance -> {
							if (instance.get("id").asString().equals(critical)) {
								seen.add(instance);
							}
						});
					}
					else if (event.name().equals("upsert") && event.json().get("id").asString().equals(critical)) {
						seen.add(event.json());
					}
				}

				assertThat(seen).as("trial %d: the watcher sees %s", trial, critical).isNotEmpty();
				for (JsonNode state : seen) {
					assertThat(state.get("health").asString()).as("trial %d: %s", trial, state).isEqualTo("CRITICAL");
					assertThat(state.get("routable").asBoolean()).as("trial %d: %s", trial, state).isFalse();
					assertThat(state.get("effectiveWeight").asInt()).as("trial %d: %s", trial, state).isZero();
				}
			}
		}
	}

	/**
	 * Instance {@code name} of {@code ownService}, with a check carrying {@code extra}.
	 */
	private static String checked(String ownService, String name, String checkExtra) {
		return """
				{"ID":"%s.%s","Name":"%s","Address":"10.0.0.1","Port":8080,"Check":{"TTL":"30s"%s}}""".formatted(name,
				ownService, ownService, checkExtra);
	}

}

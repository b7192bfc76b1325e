package dev.ballast.release;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Features that are right alone and were wrong together, each through the entrance it was
 * found at: an edit during a warm-up, a traffic shift beside maintenance or a warm-up,
 * the guard beside a warm-up, an abort beside maintenance, and the floor beside unequal
 * weights. (A failing check beside maintenance is {@code consul.EjectionBudgetTest}.)
 */
@RegistryTest
class FeaturesMeetTest {

	@LocalServerPort
	int port;

	/**
	 * Warming 1 → 100 over 4 s; a PATCH to 30 half-way. The answer and every event a
	 * watcher receives keep {@code effectiveWeight <= weight}, and the ramp never comes
	 * back down once at the new weight.
	 */
	@Test
	void anEditDuringAWarmUpNeverLiftsTheEffectiveWeightAboveTheWeight() {
		Api api = Api.on(port);
		String service = service(api, "warm-edit", 100, 100, 100, 100);
		String a = instance(service, "i1");
		assertThat(api.send("POST", a + "/maintenance", "{\"reason\":\"restart\"}", null).status()).isEqualTo(202);
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			assertThat(stream.nextEvent(Duration.ofSeconds(10)).name()).isEqualTo("snapshot");
			assertThat(api.send("POST", a + "/serve", "{\"warmupSeconds\":4}", null).status()).isEqualTo(202);
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> api.get(a).json().get("effectiveWeight").asInt() >= 40);
			Api.Reply edited = api.patch(a, "{\"weight\":30}");
			assertThat(edited.status()).isEqualTo(200);
			assertThat(edited.json().get("effectiveWeight").asInt()).as(edited.body()).isLessThanOrEqualTo(30);
			int previous = -1;
			long end = System.nanoTime() + Duration.ofSeconds(6).toNanos();
			while (System.nanoTime() < end) {
				EventStream.Event event = stream.eventWithin(Duration.ofMillis(500));
				if (event == null || !event.name().equals("upsert")) {
					continue;
				}
				JsonNode instance = event.json();
				int weight = instance.get("weight").asInt();
				int effective = instance.get("effectiveWeight").asInt();
				assertThat(effective).as("event %s", event.data()).isLessThanOrEqualTo(weight);
				if (weight == 30) {
					assertThat(effective).as("the ramp after the edit only climbs: %s", event.data())
						.isGreaterThanOrEqualTo(previous);
					previous = effective;
				}
			}
			assertThat(api.get(a).json().get("effectiveWeight").asInt()).isEqualTo(30);
			assertThat(api.get(a).json().get("mode").asString()).isEqualTo("SERVING");
		}
	}

	/**
	 * b1–b3 and g1 at 100, b3 in maintenance: 10% and then 50% of what serves (300), and
	 * when b3 serves again the shares are recomputed over 400 at once.
	 */
	@Test
	void aShiftGivesTheNewVersionItsShareOfWhatServes() {
		Api api = Api.on(port);
		String service = blueGreen(api, 3, 1);
		assertThat(api.send("POST", instance(service, "b3") + "/maintenance", "{\"reason\":\"x\"}", null).status())
			.isEqualTo(202);
		Api.Reply started = api.send("POST", "/v1/services/%s/releases".formatted(service),
				"{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"green\"},\"steps\":[10,50,100]}", null);
		assertThat(started.status()).as(started.body()).isEqualTo(201);
		assertThat(started.json().get("totalWeight").asLong()).isEqualTo(300);
		assertThat(share(api, service, "g")).isEqualTo(10.0);
		assertThat(effective(api, service)).containsEntry("g1", 30).containsEntry("b1", 135).containsEntry("b3", 0);
		String release = "/v1/services/%s/releases/%d".formatted(service, started.json().get("id").asLong());
		assertThat(api.send("POST", release + "/advance", null, null).status()).isEqualTo(200);
		assertThat(share(api, service, "g")).isEqualTo(50.0);
		assertThat(api.send("POST", instance(service, "b3") + "/serve", "{\"warmupSeconds\":0}", null).status())
			.isEqualTo(202);
		assertThat(share(api, service, "g")).as("recomputed when b3 serves again").isEqualTo(50.0);
		assertThat(effective(api, service)).containsEntry("g1", 200);
		assertThat(api.get(release).json().get("totalWeight").asLong()).isEqualTo(400);
	}

	/**
	 * A release started while a member warms up shares the members' configured weights
	 * (400), not what the ramp had given back (the issue saw 234).
	 */
	@Test
	void aShiftBesideAWarmUpSharesTheConfiguredWeights() {
		Api api = Api.on(port);
		String service = blueGreen(api, 3, 1);
		String b1 = instance(service, "b1");
		assertThat(api.send("POST", b1 + "/maintenance", "{\"reason\":\"x\"}", null).status()).isEqualTo(202);
		assertThat(api.send("POST", b1 + "/serve", "{\"warmupSeconds\":60}", null).status()).isEqualTo(202);
		Api.Reply started = api.send("POST", "/v1/services/%s/releases".formatted(service),
				"{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"green\"},\"steps\":[50,100]}", null);
		assertThat(started.status()).as(started.body()).isEqualTo(201);
		assertThat(started.json().get("totalWeight").asLong()).isEqualTo(400);
		assertThat(configured(api, service)).containsEntry("g1", 200)
			.containsEntry("b1", 67)
			.containsEntry("b2", 67)
			.containsEntry("b3", 66);
	}

	/**
	 * With o-a warming at a few of its 100, maintenance of o-b would leave almost two
	 * instances' capacity out: refused, naming o-a as warming and when its ramp ends.
	 */
	@Test
	void aWarmingInstanceHoldsTheBudgetUntilItsRampGivesItBack() {
		Api api = Api.on(port);
		String service = service(api, "warm-guard", 100, 100, 100);
		String a = instance(service, "i1");
		assertThat(api.send("POST", a + "/maintenance", "{\"reason\":\"restart\"}", null).status()).isEqualTo(202);
		assertThat(api.send("POST", a + "/serve", "{\"warmupSeconds\":60}", null).status()).isEqualTo(202);
		Api.Reply refused = api.send("POST", instance(service, "i2") + "/maintenance", "{\"reason\":\"x\"}", null);
		assertThat(refused.status()).as(refused.body()).isEqualTo(409);
		String detail = refused.json().get("detail").asString();
		assertThat(detail).contains("i1 (warming up: serves ", " of 100, its ramp ends at ");
		assertThat(refused.json().get("guard").get("holders").toString()).contains("i1");
		assertThat(api.get(instance(service, "i2")).json().get("mode").asString()).isEqualTo("SERVING");
		assertThat(api.get(a).json().get("modeUntil").asString()).isNotEmpty();
	}

	/**
	 * Blue b1–b4 and green g1–g3 at 100; a release at 99% takes blue to 2/2/2/1, each
	 * then goes into maintenance (they carry almost nothing); the abort would give them
	 * back 400 of 700 while they cannot serve it: refused, then forced.
	 */
	@Test
	void anAbortThatWouldGiveWeightToInstancesHeldOutIsGuarded() {
		Api api = Api.on(port);
		String service = blueGreen(api, 4, 3);
		Api.Reply started = api.send("POST", "/v1/services/%s/releases".formatted(service),
				"{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"green\"},\"steps\":[99,100]}", null);
		assertThat(started.status()).as(started.body()).isEqualTo(201);
		assertThat(configured(api, service)).containsEntry("b1", 2).containsEntry("b4", 1);
		for (String b : new String[] { "b1", "b2", "b3", "b4" }) {
			Api.Reply held = api.send("POST", instance(service, b) + "/maintenance", "{\"reason\":\"patch\"}", null);
			assertThat(held.status()).as(held.body()).isEqualTo(202);
		}
		String release = "/v1/services/%s/releases/%d".formatted(service, started.json().get("id").asLong());
		Api.Reply refused = api.send("POST", release + "/abort", null, null);
		assertThat(refused.status()).as(refused.body()).isEqualTo(409);
		assertThat(refused.json().get("detail").asString()).contains("aborting release", "?force=true");
		assertThat(refused.json().get("guard").get("resultingWeight").asLong()).isEqualTo(400);
		assertThat(api.get(release).json().get("state").asString()).isEqualTo("ACTIVE");
		assertThat(configured(api, service)).containsEntry("b1", 2);
		Api.Reply forced = api.send("POST", release + "/abort?force=true", null, null);
		assertThat(forced.status()).as(forced.body()).isEqualTo(200);
		assertThat(configured(api, service)).containsEntry("b1", 100).containsEntry("g1", 100);
	}

	/**
	 * Weights 1000/10/10/10: the 1000 is no average instance, so the one-at-a-time floor
	 * does not admit it; a 10 it does. Nineteen at 100 and one at 10000: draining the big
	 * one is refused too.
	 */
	@Test
	void theFloorAdmitsOneAverageInstanceNotADominantOne() {
		Api api = Api.on(port);
		String service = service(api, "floor", 1000, 10, 10, 10);
		Api.Reply refused = api.send("POST", instance(service, "i1") + "/maintenance", "{\"reason\":\"x\"}", null);
		assertThat(refused.status()).as(refused.body()).isEqualTo(409);
		assertThat(refused.json().get("guard").get("resultingPercent").asDouble()).isEqualTo(97.1);
		assertThat(api.send("POST", instance(service, "i2") + "/maintenance", "{\"reason\":\"x\"}", null).status())
			.isEqualTo(202);

		int[] weights = new int[20];
		java.util.Arrays.fill(weights, 100);
		weights[0] = 10_000;
		String big = service(api, "floor-big", weights);
		Api.Reply drain = api.send("POST", instance(big, "i1") + "/drain", "{\"durationSeconds\":1}", null);
		assertThat(drain.status()).as(drain.body()).isEqualTo(409);
		assertThat(api.send("POST", instance(big, "i2") + "/drain", "{\"durationSeconds\":1}", null).status())
			.isEqualTo(202);
	}

	private static String service(Api api, String name, int... weights) {
		String service = Names.service(name);
		for (int i = 0; i < weights.length; i++) {
			Api.Reply put = api.put(instance(service, "i" + (i + 1)),
					Registration.at("127.0.0.1", 9000 + i).weight(weights[i]).leaseTtlSeconds(300));
			assertThat(put.status()).as(put.body()).isEqualTo(201);
		}
		return service;
	}

	/** {@code blue} instances b1.. and {@code green} g1.., all at 100. */
	private static String blueGreen(Api api, int blue, int green) {
		String service = Names.service("meet");
		for (int i = 1; i <= blue; i++) {
			api.put(instance(service, "b" + i),
					Registration.at("127.0.0.1", 9100 + i).weight(100).leaseTtlSeconds(300).metadata("color", "blue"));
		}
		for (int i = 1; i <= green; i++) {
			api.put(instance(service, "g" + i),
					Registration.at("127.0.0.1", 9200 + i).weight(100).leaseTtlSeconds(300).metadata("color", "green"));
		}
		return service;
	}

	private static String instance(String service, String id) {
		return "/v1/services/%s/instances/%s".formatted(service, id);
	}

	/**
	 * The share of the effective weight that instances whose id starts with
	 * {@code prefix} get, in percent.
	 */
	private static double share(Api api, String service, String prefix) {
		Map<String, Integer> effective = effective(api, service);
		long total = effective.values().stream().mapToLong(Integer::longValue).sum();
		long part = effective.entrySet()
			.stream()
			.filter(e -> e.getKey().startsWith(prefix))
			.mapToLong(Map.Entry::getValue)
			.sum();
		return 100.0 * part / total;
	}

	private static Map<String, Integer> effective(Api api, String service) {
		return field(api, service, "effectiveWeight");
	}

	private static Map<String, Integer> configured(Api api, String service) {
		return field(api, service, "weight");
	}

	private static Map<String, Integer> field(Api api, String service, String field) {
		Map<String, Integer> values = new TreeMap<>();
		api.get("/v1/services/%s/instances".formatted(service))
			.json()
			.get("instances")
			.forEach(i -> values.put(i.get("id").asString(), i.get(field).asInt()));
		return values;
	}

}

package dev.ballast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import static dev.ballast.client.Properties.qt;
import static dev.ballast.client.Properties.withEdges;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

class SmoothWeightedBalancerPropertiesTest {

	@Test
	void neverPicksAnInstanceThatReceivesNoTraffic() {
		qt().forAll(instanceSets(), withEdges(integers().between(1, 200), 1, 200)).checkAssert((instances, picks) -> {
			SmoothWeightedBalancer balancer = balancer(instances);

			for (int i = 0; i < picks; i++) {
				balancer.pick().ifPresent((picked) -> assertThat(picked.receivesTraffic()).isTrue());
			}
		});
	}

	@Test
	void picksNothingExactlyWhenNoInstanceReceivesTraffic() {
		qt().forAll(instanceSets()).checkAssert((instances) -> {
			boolean anyEligible = instances.stream().anyMatch(WatchedInstance::receivesTraffic);

			Optional<WatchedInstance> picked = balancer(instances).pick();

			assertThat(picked.isPresent()).isEqualTo(anyEligible);
		});
	}

	@Test
	void totalPicksChooseEachInstanceExactlyItsWeightTimes() {
		qt(200).forAll(instanceSets())
			.checkAssert(SmoothWeightedBalancerPropertiesTest::choosesEachInstanceExactlyItsWeightTimes);
	}

	private static void choosesEachInstanceExactlyItsWeightTimes(List<WatchedInstance> instances) {
		SmoothWeightedBalancer balancer = balancer(instances);
		int total = instances.stream()
			.filter(WatchedInstance::receivesTraffic)
			.mapToInt(WatchedInstance::effectiveWeight)
			.sum();

		Map<String, Integer> chosen = new HashMap<>();
		for (int i = 0; i < total; i++) {
			chosen.merge(balancer.pick().orElseThrow().id(), 1, Integer::sum);
		}

		for (WatchedInstance instance : instances) {
			assertThat(chosen.getOrDefault(instance.id(), 0)).as(instance.id())
				.isEqualTo(instance.receivesTraffic() ? instance.effectiveWeight() : 0);
		}
	}

	@Test
	void theSharesRepeatInEveryRoundOfTotalPicks() {
		qt(200).forAll(instanceSets()).checkAssert(SmoothWeightedBalancerPropertiesTest::repeatsEveryRound);
	}

	private static void repeatsEveryRound(List<WatchedInstance> instances) {
		SmoothWeightedBalancer balancer = balancer(instances);
		int total = instances.stream()
			.filter(WatchedInstance::receivesTraffic)
			.mapToInt(WatchedInstance::effectiveWeight)
			.sum();
		List<String> firstRound = new ArrayList<>();
		List<String> secondRound = new ArrayList<>();

		for (int i = 0; i < total; i++) {
			firstRound.add(balancer.pick().orElseThrow().id());
		}
		for (int i = 0; i < total; i++) {
			secondRound.add(balancer.pick().orElseThrow().id());
		}

		// After a whole round every current weight is back at zero, so the rotation
		// repeats.
		assertThat(secondRound).isEqualTo(firstRound);
	}

	private static Gen<List<WatchedInstance>> instanceSets() {
		Gen<Integer> weights = Generate.frequency(Pair.of(1, Generate.constant(0)), Pair.of(4,
				withEdges(integers().between(0, WatchedInstance.MAX_WEIGHT), 1, WatchedInstance.MAX_WEIGHT)));
		Gen<Boolean> routable = Generate.frequency(Pair.of(4, Generate.constant(true)),
				Pair.of(1, Generate.constant(false)));
		return lists().of(weights.zip(routable, Candidate::new)).ofSizeBetween(0, 20).map((candidates) -> {
			List<WatchedInstance> instances = new ArrayList<>();
			for (int i = 0; i < candidates.size(); i++) {
				instances.add(Instances.weighted("i" + i, candidates.get(i).weight, candidates.get(i).routable));
			}
			return instances;
		});
	}

	private static SmoothWeightedBalancer balancer(List<WatchedInstance> instances) {
		SmoothWeightedBalancer balancer = new SmoothWeightedBalancer();
		balancer.update(instances);
		return balancer;
	}

	private record Candidate(int weight, boolean routable) {
	}

}

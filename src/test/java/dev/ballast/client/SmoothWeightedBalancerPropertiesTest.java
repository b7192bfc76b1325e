package dev.ballast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

class SmoothWeightedBalancerPropertiesTest {

	@Property
	void neverPicksAnInstanceThatReceivesNoTraffic(@ForAll("instanceSets") List<WatchedInstance> instances,
			@ForAll @IntRange(min = 1, max = 200) int picks) {
		SmoothWeightedBalancer balancer = balancer(instances);

		for (int i = 0; i < picks; i++) {
			balancer.pick().ifPresent((picked) -> assertThat(picked.receivesTraffic()).isTrue());
		}
	}

	@Property
	void picksNothingExactlyWhenNoInstanceReceivesTraffic(@ForAll("instanceSets") List<WatchedInstance> instances) {
		boolean anyEligible = instances.stream().anyMatch(WatchedInstance::receivesTraffic);

		Optional<WatchedInstance> picked = balancer(instances).pick();

		assertThat(picked.isPresent()).isEqualTo(anyEligible);
	}

	@Property(tries = 200)
	void totalPicksChooseEachInstanceExactlyItsWeightTimes(@ForAll("instanceSets") List<WatchedInstance> instances) {
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

	@Property(tries = 200)
	void theSharesRepeatInEveryRoundOfTotalPicks(@ForAll("instanceSets") List<WatchedInstance> instances) {
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

	@Provide
	Arbitrary<List<WatchedInstance>> instanceSets() {
		Arbitrary<Integer> weights = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(0)),
				Tuple.of(4, Arbitraries.integers().between(0, WatchedInstance.MAX_WEIGHT)));
		Arbitrary<Boolean> routable = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(true)),
				Tuple.of(1, Arbitraries.just(false)));
		return Combinators.combine(weights, routable).as(Candidate::new).list().ofMaxSize(20).map((candidates) -> {
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

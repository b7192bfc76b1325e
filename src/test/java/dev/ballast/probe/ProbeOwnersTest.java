package dev.ballast.probe;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.strings;

/**
 * Sharing checks among nodes: every node computes the same owner whatever order it lists
 * the nodes in; a node leaving moves only its own checks, a node joining takes checks
 * only for itself; the share is even; probe times spread over the interval.
 */
class ProbeOwnersTest {

	@Test
	void aNodeLeavingOrJoiningMovesOnlyTheChecksItHadOrGains() {
		qt().forAll(integers().between(2, 6), strings().basicLatinAlphabet().ofLengthBetween(1, 20))
			.checkAssert((count, salt) -> {
				List<String> nodes = new ArrayList<>();
				for (int node = 0; node < count; node++) {
					nodes.add("node-" + salt + "-" + node);
				}
				List<String> fewer = nodes.subList(1, nodes.size());
				List<String> reversed = new ArrayList<>(nodes).reversed();
				for (int check = 0; check < 200; check++) {
					String key = salt + "/i-" + check + "/0";
					String owner = ProbeOwners.owner(key, nodes);
					assertThat(nodes).contains(owner);
					assertThat(ProbeOwners.owner(key, reversed)).isEqualTo(owner);
					String without = ProbeOwners.owner(key, fewer);
					if (!owner.equals(nodes.getFirst())) {
						assertThat(without).as("a check of a node that stays stays with it").isEqualTo(owner);
					}
					// Seen the other way round: the first node joining takes only for
					// itself.
					if (!without.equals(owner)) {
						assertThat(owner).isEqualTo(nodes.getFirst());
					}
				}
			});
	}

	@Test
	void threeNodesShareTenThousandChecksEvenly() {
		List<String> nodes = List.of("a", "b", "c");
		Map<String, Integer> shares = new HashMap<>();
		for (int check = 0; check < 10_000; check++) {
			shares.merge(ProbeOwners.owner("svc/i-" + check + "/0", nodes), 1, Integer::sum);
		}
		assertThat(shares.values()).allSatisfy(share -> assertThat(share).isBetween(3_000, 3_667));
	}

	@Test
	void probeTimesSpreadOverTheInterval() {
		int[] tenths = new int[10];
		for (int check = 0; check < 10_000; check++) {
			double phase = ProbeOwners.phase("svc/i-" + check + "/0");
			assertThat(phase).isGreaterThanOrEqualTo(0).isLessThan(1);
			tenths[(int) (phase * 10)]++;
		}
		for (int tenth : tenths) {
			assertThat(tenth).isBetween(850, 1_150);
		}
	}

	@Test
	void noNodesNoOwner() {
		assertThat(ProbeOwners.owner("svc/i/0", List.of())).isNull();
	}

}

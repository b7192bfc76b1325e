package dev.ballast.probe;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckKind;
import dev.ballast.registry.CheckStatus;
import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * Thresholds over any sequence of results, stated by what the last results were rather
 * than by re-running the counting: a check is critical after its failures in a row reach
 * FailuresBeforeCritical, never sooner, and passes again after its successes in a row
 * reach SuccessBeforePassing, never sooner.
 */
class CheckProgressTest {

	private static final List<CheckStatus> RESULTS = List.of(CheckStatus.PASSING, CheckStatus.WARNING,
			CheckStatus.CRITICAL);

	@Test
	void turnsCriticalExactlyWhenTheTrailingFailuresReachTheThreshold() {
		qt().forAll(integers().between(1, 4), integers().between(1, 4),
				lists().of(integers().between(0, 2)).ofSizeBetween(0, 40))
			.checkAssert((failures, successes, picks) -> {
				CheckDefinition definition = definition(failures, successes);
				CheckProgress progress = CheckProgress.of(CheckStatus.PASSING);
				boolean wasCritical = false;
				for (int step = 0; step < picks.size(); step++) {
					CheckStatus result = RESULTS.get(picks.get(step));
					progress = progress.after(result, definition);
					List<CheckStatus> history = picks.subList(0, step + 1).stream().map(RESULTS::get).toList();
					int trailingFailures = trailing(history, true);
					int trailingSuccesses = trailing(history, false);
					boolean critical = progress.status() == CheckStatus.CRITICAL;
					if (!wasCritical && critical) {
						assertThat(trailingFailures).as("turned critical at step %d of %s", step, history)
							.isEqualTo(failures);
					}
					if (wasCritical && !critical) {
						assertThat(trailingSuccesses).as("passed again at step %d of %s", step, history)
							.isEqualTo(successes);
						assertThat(progress.status()).isEqualTo(result);
					}
					if (trailingFailures >= failures) {
						assertThat(critical).as("after %d failures in a row", trailingFailures).isTrue();
					}
					if (!critical) {
						assertThat(progress.status()).as("a check that is not critical shows the last result")
							.isEqualTo(trailingFailures > 0 ? previousNonFailure(history) : result);
					}
					wasCritical = critical;
				}
			});
	}

	@Test
	void zeroThresholdsCountAsOneAsConsulCountsThem() {
		CheckDefinition definition = definition(0, 0);
		CheckProgress failed = CheckProgress.of(CheckStatus.PASSING).after(CheckStatus.CRITICAL, definition);
		assertThat(failed.status()).isEqualTo(CheckStatus.CRITICAL);
		assertThat(failed.after(CheckStatus.PASSING, definition).status()).isEqualTo(CheckStatus.PASSING);
	}

	private static int trailing(List<CheckStatus> history, boolean failures) {
		int count = 0;
		for (int index = history.size() - 1; index >= 0; index--) {
			if ((history.get(index) == CheckStatus.CRITICAL) != failures) {
				break;
			}
			count++;
		}
		return count;
	}

	/** The last result that was not a failure, or PASSING when there was none. */
	private static CheckStatus previousNonFailure(List<CheckStatus> history) {
		for (int index = history.size() - 1; index >= 0; index--) {
			if (history.get(index) != CheckStatus.CRITICAL) {
				return history.get(index);
			}
		}
		return CheckStatus.PASSING;
	}

	private static CheckDefinition definition(int failures, int successes) {
		return CheckDefinition.of(CheckKind.TCP, "127.0.0.1:80", null, Map.of(), false, Duration.ofSeconds(10), null,
				failures, successes, null);
	}

}

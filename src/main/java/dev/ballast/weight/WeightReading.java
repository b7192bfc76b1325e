package dev.ballast.weight;

import java.util.Objects;
import java.util.Optional;

/** What {@link WeightReader} made of a received JSON value. */
public sealed interface WeightReading {

	/** The value was a JSON integer in range, taken as it was. */
	record Exact(Weight weight) implements WeightReading {
		public Exact {
			Objects.requireNonNull(weight, "weight");
		}
	}

	/**
	 * The value was converted into a weight; {@code received} describes what was
	 * converted, such as {@code the string "0"}, so that the conversion can be reported
	 * back to the sender.
	 */
	record Normalized(Weight weight, String received) implements WeightReading {
		public Normalized {
			Objects.requireNonNull(weight, "weight");
			Objects.requireNonNull(received, "received");
		}
	}

	/**
	 * The value is not a weight; {@code detail} says what was expected and what was
	 * received.
	 */
	record Refused(String detail) implements WeightReading {
		public Refused {
			Objects.requireNonNull(detail, "detail");
		}
	}

	/** The weight read, whether exact or converted; empty when the value was refused. */
	default Optional<Weight> accepted() {
		return switch (this) {
			case Exact exact -> Optional.of(exact.weight());
			case Normalized normalized -> Optional.of(normalized.weight());
			case Refused _ -> Optional.empty();
		};
	}

}

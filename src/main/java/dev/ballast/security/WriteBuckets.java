package dev.ballast.security;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;

import org.springframework.stereotype.Component;

/**
 * Each token's write allowance on this node: a token bucket holding one second's worth,
 * so short bursts pass. One per node, shared by the filter chain ({@link WriteLimits})
 * and the paths that answer before it ({@link ShortWayAdmission}), so a token's writes
 * count once whichever way they come.
 */
@Component
class WriteBuckets {

	private final RateLimitSettings settings;

	private final Map<UUID, Bucket> buckets = new ConcurrentHashMap<>();

	WriteBuckets(RateLimitSettings settings) {
		this.settings = settings;
	}

	/** The token's limit per second: its own, or the node's default. */
	int perSecond(Token token) {
		return token.writesPerSecond() == null ? settings.writesPerSecond() : token.writesPerSecond();
	}

	/** Takes one write from the token's bucket, if it holds one. */
	ConsumptionProbe take(Token token) {
		int perSecond = perSecond(token);
		return buckets
			.computeIfAbsent(token.id(),
					id -> Bucket.builder()
						.addLimit(limit -> limit.capacity(perSecond).refillGreedy(perSecond, Duration.ofSeconds(1)))
						.build())
			.tryConsumeAndReturnRemaining(1);
	}

	/** Like {@link #take}, when only the outcome matters. */
	boolean tryTake(Token token) {
		Bucket bucket = buckets.get(token.id());
		return bucket != null ? bucket.tryConsume(1) : take(token).isConsumed();
	}

}

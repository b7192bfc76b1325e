package dev.ballast.release;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.release.*}.
 *
 * @param stepInterval how long each ramp step lasts (a 10 s drain has 10 steps)
 * @param defaultDrain a drain's duration when the request names none
 * @param defaultWarmup a warm-up's duration when the request names none
 * @param tickInterval how often the scheduler looks for due steps
 * @param scheduled whether this node runs the scheduler (tests drive it)
 */
@ConfigurationProperties("ballast.release")
record ReleaseSettings(@DefaultValue("1s") Duration stepInterval, @DefaultValue("10s") Duration defaultDrain,
		@DefaultValue("30s") Duration defaultWarmup, @DefaultValue("250ms") Duration tickInterval,
		@DefaultValue("true") boolean scheduled) {
}

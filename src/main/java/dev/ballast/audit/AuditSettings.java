package dev.ballast.audit;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.audit.*}.
 *
 * @param retention how long audit events are kept; older ones are pruned every
 * {@code pruneInterval}
 * @param pruneInterval how often the retention job runs
 * @param scheduled whether this node runs the retention job (tests drive it)
 */
@ConfigurationProperties("ballast.audit")
record AuditSettings(@DefaultValue("90d") Duration retention, @DefaultValue("1h") Duration pruneInterval,
		@DefaultValue("true") boolean scheduled) {

	AuditSettings {
		if (retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("ballast.audit.retention must be positive; got " + retention);
		}
	}

}

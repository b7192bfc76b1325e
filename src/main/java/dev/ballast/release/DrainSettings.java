package dev.ballast.release;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.drain.*}.
 *
 * @param confirmTimeout how long a drain at weight 0 waits for every live subscriber to
 * acknowledge it before it is declared {@code DRAINED} anyway (listing those that did
 * not)
 * @param confirmCheck how often a waiting drain looks at the acknowledgements again
 */
@ConfigurationProperties("ballast.drain")
record DrainSettings(@DefaultValue("60s") Duration confirmTimeout, @DefaultValue("500ms") Duration confirmCheck) {
}

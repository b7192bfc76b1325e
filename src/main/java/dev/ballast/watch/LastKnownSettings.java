package dev.ballast.watch;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.last-known.*}.
 *
 * @param maxServices services whose last read state this node keeps to answer reads while
 * the database is unreachable; the least recently used are forgotten first
 */
@ConfigurationProperties("ballast.last-known")
record LastKnownSettings(@DefaultValue("10000") int maxServices) {

}

package dev.ballast.database;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.database.*}.
 *
 * @param probeInterval how often the node checks that it reaches the database, on a
 * connection of its own outside the pool; also how soon it notices the database is back
 * @param probeTimeout how long one check may take (connect, then answer) before the
 * database counts as unreachable
 */
@ConfigurationProperties("ballast.database")
record ProbeSettings(@DefaultValue("1s") Duration probeInterval, @DefaultValue("2s") Duration probeTimeout) {

}

package dev.ballast.database;

import java.time.Instant;

/**
 * The database stopped answering this node's probe: from now on connections are refused
 * at once, and modules serve what they hold in memory.
 *
 * @param at when the probe failed
 */
public record DatabaseLost(Instant at) {
}

package dev.ballast.database;

import java.time.Duration;

/**
 * The database answers this node's probe again after it was lost; connections are handed
 * out again.
 *
 * @param unreachableFor how long the node saw it unreachable
 */
public record DatabaseRestored(Duration unreachableFor) {
}

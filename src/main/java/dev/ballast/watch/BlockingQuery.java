package dev.ballast.watch;

/**
 * The parameters of a read that may block.
 *
 * @param after the revision the client has ({@code ?index=}); {@code null} for a plain
 * read
 * @param timeoutMillis how long it may wait, jittered so that pollers spread out
 * @param subscriber the polling subscriber's name, or {@code null}
 */
public record BlockingQuery(Long after, long timeoutMillis, String subscriber) {
}

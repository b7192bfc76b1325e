/**
 * Change streams: the per-service change log that every write appends to in its own
 * transaction, from which watchers (SSE, blocking queries) learn exactly what changed
 * after a revision.
 */
package dev.ballast.watch;

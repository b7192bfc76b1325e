package dev.ballast.watch;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.watch.*}.
 *
 * @param keepalive a comment line is sent to an idle stream at least this often, so both
 * ends notice a dead connection
 * @param maxAge streams are closed (with a {@code reconnect} event) after about this
 * long, so that clients spread again over the nodes
 * @param maxAgeJitter up to this much is added to or taken from each stream's age limit,
 * so that streams opened together do not all reconnect together
 * @param retention how long the change log keeps a change; a client resuming from an
 * older revision gets a fresh snapshot
 * @param maxWatchers streams plus waiting blocking queries this node serves at once; past
 * it, 503 with Retry-After
 * @param maxTokenlessWatchers of those, the blocking queries without a token (Consul's
 * catalog) at most, so that they cannot use up what callers with a token need; past it,
 * 503
 * @param maxStreamsPerToken streams one token may hold open on this node; past it, that
 * token's new streams get 503 with Retry-After
 * @param queueCapacity events queued for one stream that is not reading; past it the
 * queue is dropped and the stream gets a fresh snapshot instead
 * @param stallTimeout a stream that has taken nothing for this long when its queue
 * overflows is closed instead
 * @param recentChanges changes kept in memory per service, so resuming clients are served
 * without reading the database; as many steps of each zone's view with open streams, by
 * which a zone's stream resumes
 * @param catchUpInterval how often the node compares its revisions with the database, so
 * a lost notification only delays an event
 * @param idleServiceTimeout a service nobody on this node watches, waits on or asks for
 * over DNS is forgotten after this
 * @param defaultWait a blocking query's wait when it names none
 * @param maxWait the longest wait a blocking query may ask for
 * @param subscriberTtl a named subscriber not seen for this long is no longer live, and
 * is dropped
 * @param flushInterval how often delivered and acknowledged revisions are written
 * @param scheduled whether this node runs the watch timers (tests drive them)
 */
@ConfigurationProperties("ballast.watch")
record WatchSettings(@DefaultValue("15s") Duration keepalive, @DefaultValue("10m") Duration maxAge,
		@DefaultValue("1m") Duration maxAgeJitter, @DefaultValue("1h") Duration retention,
		@DefaultValue("15000") int maxWatchers, @DefaultValue("1000") int maxTokenlessWatchers,
		@DefaultValue("1000") int maxStreamsPerToken, @DefaultValue("1000") int queueCapacity,
		@DefaultValue("30s") Duration stallTimeout, @DefaultValue("1024") int recentChanges,
		@DefaultValue("2s") Duration catchUpInterval, @DefaultValue("2m") Duration idleServiceTimeout,
		@DefaultValue("60s") Duration defaultWait, @DefaultValue("300s") Duration maxWait,
		@DefaultValue("60s") Duration subscriberTtl, @DefaultValue("1s") Duration flushInterval,
		@DefaultValue("true") boolean scheduled) {

}

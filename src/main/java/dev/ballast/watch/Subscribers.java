package dev.ballast.watch;

import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ServiceStore;
import dev.ballast.web.NotFoundException;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The named subscribers of each service, whatever they follow it by (SSE streams,
 * blocking queries, xDS streams): the last revision this registry delivered to each, the
 * last one each acknowledged having applied, the zone it asked for, and an xDS client's
 * last refusal. Progress is gathered in memory and written once a second; the rows are
 * shared by all nodes, so whichever node runs a drain sees the acknowledgements of
 * subscribers connected to any of them.
 */
@Component
public class Subscribers {

	private final JdbcTemplate jdbc;

	private final ServiceStore services;

	private final TransactionTemplate transactions;

	private final Clock clock;

	private final WatchSettings settings;

	private final Map<Key, Progress> pending = new ConcurrentHashMap<>();

	private final Map<Key, Integer> connected = new ConcurrentHashMap<>();

	Subscribers(JdbcTemplate jdbc, ServiceStore services, TransactionTemplate transactions, Clock clock,
			WatchSettings settings) {
		this.jdbc = jdbc;
		this.services = services;
		this.transactions = transactions;
		this.clock = clock;
		this.settings = settings;
	}

	/** {@code revision} of {@code service} was sent to the subscriber. */
	public void delivered(String service, String name, long revision) {
		pending.merge(new Key(service, name), Progress.NONE.delivered(revision), Progress::max);
	}

	/** The subscriber has applied {@code revision}: it confirms drains up to there. */
	public void acked(String service, String name, long revision) {
		pending.merge(new Key(service, name), Progress.NONE.acked(revision), Progress::max);
	}

	/**
	 * An xDS subscriber refused the response that carried {@code revision}, saying
	 * {@code detail}; it keeps what it applied before.
	 */
	public void nacked(String service, String name, long revision, String detail) {
		pending.merge(new Key(service, name),
				Progress.NONE.nacked(SubscriberNack.of(revision, detail, clock.instant())), Progress::max);
	}

	void seen(String service, String name) {
		pending.merge(new Key(service, name), Progress.NONE, Progress::max);
	}

	/**
	 * A subscriber is connected (a stream, a waiting blocking query), by
	 * {@code protocol}, asking for {@code zone}'s view (or {@code null}): it counts as
	 * seen at every flush until the returned handle is closed.
	 */
	public Runnable connect(String service, String name, SubscriberProtocol protocol, String zone) {
		Key key = new Key(service, name);
		connected.merge(key, 1, Integer::sum);
		pending.merge(key, Progress.NONE.by(protocol, zone), Progress::max);
		return () -> {
			connected.computeIfPresent(key, (k, count) -> count == 1 ? null : count - 1);
			seen(service, name);
		};
	}

	/**
	 * Whether {@code name} may name a subscriber:
	 * {@value QueryParameters#SUBSCRIBER_PATTERN}.
	 */
	public static boolean named(String name) {
		return name != null && QueryParameters.SUBSCRIBER.matcher(name).matches();
	}

	/**
	 * Writes the progress gathered since the last flush, and drops subscribers not seen
	 * for the subscriber TTL. Progress only ever moves forward, whichever node writes it.
	 */
	void flush() {
		connected.keySet().forEach(key -> pending.merge(key, Progress.NONE, Progress::max));
		// Entries stay in memory until their row is committed, so that list() and
		// unconfirmed() never miss one that is on its way to the database.
		List<Map.Entry<Key, Progress>> batch = new ArrayList<>(Map.copyOf(pending).entrySet());
		Instant now = clock.instant();
		if (!batch.isEmpty()) {
			// One lock order for every node's flush, so two flushes cannot deadlock.
			batch.sort(Comparator.comparing((Map.Entry<Key, Progress> entry) -> entry.getKey().service())
				.thenComparing(entry -> entry.getKey().name()));
			transactions.executeWithoutResult(status -> upsert(batch, now));
			batch.forEach(entry -> pending.remove(entry.getKey(), entry.getValue()));
		}
		jdbc.update("DELETE FROM subscriber WHERE last_seen_at < ?",
				Timestamp.from(now.minus(settings.subscriberTtl())));
	}

	/**
	 * Writes the progress of subscribers of registered services; a service's removal
	 * deletes its subscribers, and waits for this transaction (or this transaction for
	 * it), so no row outlives its service.
	 */
	private void upsert(List<Map.Entry<Key, Progress>> all, Instant now) {
		Set<String> registered = services
			.holdRegistered(all.stream().map(entry -> entry.getKey().service()).distinct().toArray(String[]::new));
		List<Map.Entry<Key, Progress>> batch = all.stream()
			.filter(entry -> registered.contains(entry.getKey().service()))
			.toList();
		int size = batch.size();
		String[] services = new String[size];
		String[] names = new String[size];
		Long[] delivered = new Long[size];
		Long[] acked = new Long[size];
		String[] protocols = new String[size];
		String[] zones = new String[size];
		Long[] nackRevisions = new Long[size];
		String[] nackDetails = new String[size];
		Timestamp[] nackTimes = new Timestamp[size];
		for (int i = 0; i < size; i++) {
			Progress progress = batch.get(i).getValue();
			services[i] = batch.get(i).getKey().service();
			names[i] = batch.get(i).getKey().name();
			delivered[i] = progress.delivered();
			acked[i] = progress.acked();
			protocols[i] = progress.protocol() == null ? null : progress.protocol().json();
			zones[i] = progress.zone();
			if (progress.nack() != null) {
				nackRevisions[i] = progress.nack().revision();
				nackDetails[i] = progress.nack().detail();
				nackTimes[i] = Timestamp.from(progress.nack().at());
			}
		}
		jdbc.update(connection -> {
			PreparedStatement statement = connection.prepareStatement(
					"""
							INSERT INTO subscriber AS s (service, name, delivered_revision, acked_revision, first_seen_at, last_seen_at,
							                             protocol, zone, nack_revision, nack_detail, nack_at)
							SELECT v.service, v.name, v.delivered, v.acked, ?, ?, v.protocol, v.zone, v.nack_revision, v.nack_detail, v.nack_at
							  FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::bigint[], ?::text[],
							              ?::timestamptz[])
							       AS v(service, name, delivered, acked, protocol, zone, nack_revision, nack_detail, nack_at)
							    ON CONFLICT (service, name) DO UPDATE
							   SET delivered_revision = greatest(s.delivered_revision, excluded.delivered_revision),
							       acked_revision = greatest(s.acked_revision, excluded.acked_revision),
							       last_seen_at = greatest(s.last_seen_at, excluded.last_seen_at),
							       protocol = coalesce(excluded.protocol, s.protocol),
							       zone = coalesce(excluded.zone, s.zone),
							       nack_revision = CASE WHEN excluded.nack_at > s.nack_at OR s.nack_at IS NULL
							                            THEN coalesce(excluded.nack_revision, s.nack_revision) ELSE s.nack_revision END,
							       nack_detail = CASE WHEN excluded.nack_at > s.nack_at OR s.nack_at IS NULL
							                          THEN coalesce(excluded.nack_detail, s.nack_detail) ELSE s.nack_detail END,
							       nack_at = greatest(s.nack_at, excluded.nack_at)""");
			Timestamp at = Timestamp.from(now);
			statement.setTimestamp(1, at);
			statement.setTimestamp(2, at);
			statement.setArray(3, connection.createArrayOf("text", services));
			statement.setArray(4, connection.createArrayOf("text", names));
			statement.setArray(5, connection.createArrayOf("bigint", delivered));
			statement.setArray(6, connection.createArrayOf("bigint", acked));
			statement.setArray(7, connection.createArrayOf("text", protocols));
			statement.setArray(8, connection.createArrayOf("text", zones));
			statement.setArray(9, connection.createArrayOf("bigint", nackRevisions));
			statement.setArray(10, connection.createArrayOf("text", nackDetails));
			statement.setArray(11, connection.createArrayOf("timestamptz", nackTimes));
			return statement;
		});
	}

	/**
	 * The live subscribers of a service, with what this node has gathered but not yet
	 * written.
	 */
	SubscriberList list(ServiceName service) {
		long revision = services.revision(service)
			.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(service)));
		Instant now = clock.instant();
		Map<String, SubscriberView> views = new TreeMap<>();
		jdbc.query(
				"""
						SELECT name, delivered_revision, acked_revision, last_seen_at, protocol, zone, nack_revision, nack_detail,
						       nack_at
						  FROM subscriber WHERE service = ? AND last_seen_at >= ?""",
				rs -> {
					Timestamp nackAt = rs.getTimestamp(9);
					Progress stored = new Progress(rs.getLong(2), rs.getLong(3),
							SubscriberProtocol.parse(rs.getString(5)), rs.getString(6), nackAt == null ? null
									: new SubscriberNack(rs.getLong(7), rs.getString(8), nackAt.toInstant()));
					Progress progress = Progress.max(stored,
							pending.getOrDefault(new Key(service.value(), rs.getString(1)), Progress.NONE));
					views.put(rs.getString(1),
							progress.view(rs.getString(1), revision, rs.getTimestamp(4).toInstant()));
				}, service.value(), Timestamp.from(now.minus(settings.subscriberTtl())));
		pending.forEach((key, progress) -> {
			if (key.service().equals(service.value())) {
				views.computeIfAbsent(key.name(), name -> progress.view(name, revision, now));
			}
		});
		return new SubscriberList(service.value(), revision, List.copyOf(views.values()));
	}

	/**
	 * The names of the live subscribers of a service: those a drain starting now waits
	 * for.
	 */
	public List<String> live(ServiceName service) {
		return list(service).subscribers().stream().map(SubscriberView::name).toList();
	}

	/**
	 * The live subscribers of a service that have not acknowledged {@code revision} yet:
	 * what a drain waits for before it is complete.
	 */
	public List<String> unconfirmed(ServiceName service, long revision) {
		return list(service).subscribers()
			.stream()
			.filter(subscriber -> subscriber.ackedRevision() < revision)
			.map(SubscriberView::name)
			.toList();
	}

	/**
	 * Those of {@code names} that have acknowledged {@code revision}, live or not: a
	 * subscriber dropped for going silent keeps its row no longer, so it counts as not
	 * having confirmed.
	 */
	public List<String> confirmed(ServiceName service, List<String> names, long revision) {
		if (names.isEmpty()) {
			return List.of();
		}
		List<String> confirmed = new ArrayList<>();
		for (String name : names) {
			Progress progress = pending.getOrDefault(new Key(service.value(), name), Progress.NONE);
			Long acked = jdbc.query("SELECT acked_revision FROM subscriber WHERE service = ? AND name = ?",
					rs -> rs.next() ? rs.getLong(1) : null, service.value(), name);
			if (Math.max(progress.acked(), acked == null ? 0 : acked) >= revision) {
				confirmed.add(name);
			}
		}
		return confirmed;
	}

	private record Key(String service, String name) {
	}

	/**
	 * What is known of a subscriber: revisions only move forward; the protocol and zone
	 * are the last ones given, and the NACK the latest.
	 */
	private record Progress(long delivered, long acked, SubscriberProtocol protocol, String zone, SubscriberNack nack) {

		static final Progress NONE = new Progress(0, 0, null, null, null);

		Progress delivered(long revision) {
			return new Progress(revision, acked, protocol, zone, nack);
		}

		Progress acked(long revision) {
			return new Progress(delivered, revision, protocol, zone, nack);
		}

		Progress by(SubscriberProtocol by, String in) {
			return new Progress(delivered, acked, by, in, nack);
		}

		Progress nacked(SubscriberNack refused) {
			return new Progress(delivered, acked, protocol, zone, refused);
		}

		/** {@code a} and {@code b} together, {@code b} the newer. */
		static Progress max(Progress a, Progress b) {
			return new Progress(Math.max(a.delivered, b.delivered), Math.max(a.acked, b.acked),
					b.protocol != null ? b.protocol : a.protocol, b.zone != null ? b.zone : a.zone,
					SubscriberNack.later(a.nack, b.nack));
		}

		SubscriberView view(String name, long revision, Instant lastSeenAt) {
			return new SubscriberView(name, protocol == null ? null : protocol.json(), zone, delivered, acked,
					Math.max(0, revision - acked), nack, lastSeenAt);
		}

	}

}

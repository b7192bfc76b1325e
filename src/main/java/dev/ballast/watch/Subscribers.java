package dev.ballast.watch;

import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import dev.ballast.instance.ServiceName;
import dev.ballast.web.NotFoundException;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The named subscribers of each service: the last revision this registry delivered to
 * each, and the last one each acknowledged having applied. Progress is gathered in memory
 * and written once a second; the rows are shared by all nodes, so whichever node runs a
 * drain sees the acknowledgements of subscribers connected to any of them.
 */
@Component
public class Subscribers {

	private final JdbcTemplate jdbc;

	private final Clock clock;

	private final WatchSettings settings;

	private final Map<Key, Progress> pending = new ConcurrentHashMap<>();

	private final Map<Key, Integer> connected = new ConcurrentHashMap<>();

	Subscribers(JdbcTemplate jdbc, Clock clock, WatchSettings settings) {
		this.jdbc = jdbc;
		this.clock = clock;
		this.settings = settings;
	}

	void delivered(String service, String name, long revision) {
		pending.merge(new Key(service, name), new Progress(revision, 0), Progress::max);
	}

	void acked(String service, String name, long revision) {
		pending.merge(new Key(service, name), new Progress(0, revision), Progress::max);
	}

	void seen(String service, String name) {
		pending.merge(new Key(service, name), Progress.NONE, Progress::max);
	}

	/**
	 * A subscriber is connected (a stream, a waiting blocking query): it counts as seen
	 * at every flush until the returned handle is closed.
	 */
	Runnable connect(String service, String name) {
		Key key = new Key(service, name);
		connected.merge(key, 1, Integer::sum);
		seen(service, name);
		return () -> {
			connected.computeIfPresent(key, (k, count) -> count == 1 ? null : count - 1);
			seen(service, name);
		};
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
			upsert(batch, now);
			batch.forEach(entry -> pending.remove(entry.getKey(), entry.getValue()));
		}
		jdbc.update("DELETE FROM subscriber WHERE last_seen_at < ?",
				Timestamp.from(now.minus(settings.subscriberTtl())));
	}

	private void upsert(List<Map.Entry<Key, Progress>> batch, Instant now) {
		String[] services = new String[batch.size()];
		String[] names = new String[batch.size()];
		Long[] delivered = new Long[batch.size()];
		Long[] acked = new Long[batch.size()];
		for (int i = 0; i < batch.size(); i++) {
			services[i] = batch.get(i).getKey().service();
			names[i] = batch.get(i).getKey().name();
			delivered[i] = batch.get(i).getValue().delivered();
			acked[i] = batch.get(i).getValue().acked();
		}
		jdbc.update(connection -> {
			PreparedStatement statement = connection.prepareStatement(
					"""
							INSERT INTO subscriber AS s (service, name, delivered_revision, acked_revision, first_seen_at, last_seen_at)
							SELECT v.service, v.name, v.delivered, v.acked, ?, ?
							  FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[]) AS v(service, name, delivered, acked)
							  JOIN service ON service.name = v.service
							    ON CONFLICT (service, name) DO UPDATE
							   SET delivered_revision = greatest(s.delivered_revision, excluded.delivered_revision),
							       acked_revision = greatest(s.acked_revision, excluded.acked_revision),
							       last_seen_at = greatest(s.last_seen_at, excluded.last_seen_at)""");
			Timestamp at = Timestamp.from(now);
			statement.setTimestamp(1, at);
			statement.setTimestamp(2, at);
			statement.setArray(3, connection.createArrayOf("text", services));
			statement.setArray(4, connection.createArrayOf("text", names));
			statement.setArray(5, connection.createArrayOf("bigint", delivered));
			statement.setArray(6, connection.createArrayOf("bigint", acked));
			return statement;
		});
	}

	/**
	 * The live subscribers of a service, with what this node has gathered but not yet
	 * written.
	 */
	SubscriberList list(ServiceName service) {
		Long revision = jdbc.query("SELECT revision FROM service WHERE name = ?",
				rs -> rs.next() ? rs.getLong(1) : null, service.value());
		if (revision == null) {
			throw new NotFoundException("service %s is not registered".formatted(service));
		}
		Instant now = clock.instant();
		Map<String, SubscriberView> views = new TreeMap<>();
		jdbc.query("""
				SELECT name, delivered_revision, acked_revision, last_seen_at
				  FROM subscriber WHERE service = ? AND last_seen_at >= ?""", rs -> {
			Progress progress = pending.getOrDefault(new Key(service.value(), rs.getString(1)), Progress.NONE);
			long delivered = Math.max(rs.getLong(2), progress.delivered());
			long acked = Math.max(rs.getLong(3), progress.acked());
			views.put(rs.getString(1), new SubscriberView(rs.getString(1), delivered, acked,
					Math.max(0, revision - acked), rs.getTimestamp(4).toInstant()));
		}, service.value(), Timestamp.from(now.minus(settings.subscriberTtl())));
		pending.forEach((key, progress) -> {
			if (key.service().equals(service.value())) {
				views.computeIfAbsent(key.name(), name -> new SubscriberView(name, progress.delivered(),
						progress.acked(), Math.max(0, revision - progress.acked()), now));
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

	private record Progress(long delivered, long acked) {

		static final Progress NONE = new Progress(0, 0);

		static Progress max(Progress a, Progress b) {
			return new Progress(Math.max(a.delivered, b.delivered), Math.max(a.acked, b.acked));
		}

	}

}

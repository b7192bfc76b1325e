package dev.ballast.consul;

import java.util.List;
import java.util.function.Function;

import dev.ballast.database.Reachability;
import dev.ballast.instance.InstanceDirectory;
import dev.ballast.registry.Answer;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.ServiceName;
import dev.ballast.watch.BlockingQueries;
import dev.ballast.watch.BlockingQuery;
import dev.ballast.watch.BlockingWait;

import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * The reads of one service, plain or blocking, on the node's blocking-query machinery: a
 * waiting query holds no thread, counts against the node's cap of watchers, and is
 * answered from the node's applied state as soon as the service changes.
 *
 * <p>
 * The Consul index of a service's answers is its revision plus one: an index is at least
 * 1 in Consul, and a service not registered yet answers an empty list at index 1 (or,
 * once removed, at its last revision plus one), so that its first registration (revision
 * 1, index 2) still wakes a query waiting on it, as soon as it commits. A named
 * subscriber's index, less one, is the revision it has applied, which confirms drains as
 * Ballast's own blocking queries do.
 */
@Component
class ConsulReads {

	private final InstanceDirectory directory;

	private final BlockingQueries blocking;

	private final Reachability reachability;

	ConsulReads(InstanceDirectory directory, BlockingQueries blocking, Reachability reachability) {
		this.directory = directory;
		this.blocking = blocking;
		this.reachability = reachability;
	}

	<T> DeferredResult<ResponseEntity<List<T>>> read(ServiceName name, ConsulQuery consul,
			Function<InstanceList, List<T>> render) {
		Long after = consul.index() == 0 ? null : consul.index() - 1;
		BlockingQuery query = blocking.query(after == null ? null : Long.toString(after), consul.waitFor(),
				consul.subscriber());
		String polling = query.subscriber();
		DeferredResult<ResponseEntity<List<T>>> result = new DeferredResult<>(query.timeoutMillis());
		Answer<InstanceList> found = directory.listOrNone(name);
		InstanceList now = found.value();
		boolean stale = found.stale();
		if (polling != null && after != null && after <= now.revision()) {
			blocking.acknowledged(name, polling, after);
		}
		// As Ballast's own blocking queries: an index ahead of the revision (another
		// database, a reset) is answered at once, except during an outage.
		if (after == null || after < now.revision() || (after > now.revision() && !stale)) {
			result.setResult(delivered(name, polling, now, stale, render));
			return result;
		}
		blocking.await(new BlockingWait(name, polling, BlockingWait.movedFrom(now),
				state -> result.setResult(delivered(name, polling, state, false, render)),
				() -> result.setResult(delivered(name, polling, now, !reachability.reachable(), render)), result));
		return result;
	}

	private <T> ResponseEntity<List<T>> delivered(ServiceName name, String subscriber, InstanceList state,
			boolean stale, Function<InstanceList, List<T>> render) {
		if (subscriber != null) {
			blocking.delivered(name, subscriber, state.revision());
		}
		return answer(state, stale, render);
	}

	private static <T> ResponseEntity<List<T>> answer(InstanceList state, boolean stale,
			Function<InstanceList, List<T>> render) {
		return ConsulHeaders.indexed(state.revision() + 1, stale).body(render.apply(state));
	}

}

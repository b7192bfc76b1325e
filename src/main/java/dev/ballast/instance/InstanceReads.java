package dev.ballast.instance;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

import dev.ballast.database.Reachability;
import dev.ballast.registry.Answer;
import dev.ballast.registry.Checks;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.Tags;
import dev.ballast.registry.ZoneView;
import dev.ballast.watch.BlockingQueries;
import dev.ballast.watch.BlockingQuery;
import dev.ballast.watch.BlockingWait;
import dev.ballast.web.Headers;
import dev.ballast.web.NotFoundException;

import org.springframework.dao.DataAccessException;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * The reads of a service's instances, plain or blocking. A blocking query that has
 * nothing new to answer waits without holding a thread; it is answered from the node's
 * applied state as soon as the revision passes the client's index, or with the unchanged
 * state after its wait.
 */
@Component
class InstanceReads {

	/**
	 * Where a blocking read of one instance is answered once it moved: off the thread
	 * that delivers to every waiter, since the answer reads the instance's checks.
	 */
	private static final Executor ANSWERING = task -> Thread.ofVirtual().name("ballast-instance-answer").start(task);

	private final InstanceQueries queries;

	private final BlockingQueries blocking;

	private final Reachability reachability;

	private final Checks checks;

	InstanceReads(InstanceQueries queries, BlockingQueries blocking, Reachability reachability, Checks checks) {
		this.queries = queries;
		this.blocking = blocking;
		this.reachability = reachability;
		this.checks = checks;
	}

	/**
	 * @param tags only instances carrying all of these ({@link Tags#carryAll}); the
	 * revision is the service's, so a blocking query is answered at any change of the
	 * service, as Consul's tag queries are
	 * @param zone the caller's zone, whose view is answered ({@link ZoneView}), or
	 * {@code null} for the flat view
	 */
	DeferredResult<ResponseEntity<InstanceList>> list(ServiceName name, String index, String wait, String subscriber,
			List<String> tags, String zone) {
		BlockingQuery query = blocking.query(index, wait, subscriber);
		Long after = query.after();
		String polling = query.subscriber();
		// A blocking query waits for a service that is not registered (yet), as Consul's
		// do: a balancer may start before its service. A plain read of it is a 404.
		Answer<InstanceList> answer = after == null ? queries.instances(name) : queries.instancesOrNone(name);
		InstanceList now = answer.value();
		if (polling != null && after != null && after <= now.revision()) {
			blocking.acknowledged(name, polling, after);
		}
		DeferredResult<ResponseEntity<InstanceList>> result = new DeferredResult<>(query.timeoutMillis());
		// An index ahead of the revision is from another database or a reset: answer at
		// once with the real one, as Consul does, rather than wait for nothing. During an
		// outage it more likely comes from a node that read further: the query waits.
		if (after == null || after < now.revision() || (after > now.revision() && !answer.stale())) {
			result.setResult(listed(name, polling, now, answer.stale(), tags, zone));
			return result;
		}
		// During an outage the query still waits, on memory: answered at once, stale, a
		// herd of pollers would ask again at once.
		blocking.await(new BlockingWait(name, polling, BlockingWait.movedFrom(now),
				state -> result.setResult(listed(name, polling, state, false, tags, zone)),
				() -> result.setResult(listed(name, polling, now, !reachability.reachable(), tags, zone)), result));
		return result;
	}

	/**
	 * @param mayWrite whether the caller may write the service, asked on the request's
	 * thread: its checks' whole output is shown only then
	 */
	DeferredResult<ResponseEntity<InstanceDetail>> get(ServiceName name, InstanceId id, String index, String wait,
			boolean mayWrite) {
		BlockingQuery query = blocking.query(index, wait, null);
		Long after = query.after();
		Answer<InstanceView> answer = queries.instance(name, id);
		InstanceView now = answer.value();
		DeferredResult<ResponseEntity<InstanceDetail>> result = new DeferredResult<>(query.timeoutMillis());
		if (after == null || now.revision() > after) {
			result.setResult(found(now, answer.stale(), mayWrite));
			return result;
		}
		blocking.await(new BlockingWait(name, null,
				state -> state.revision() > after && find(state, id).map(i -> i.revision() > after).orElse(true),
				state -> find(state, id).ifPresentOrElse(
						instance -> ANSWERING.execute(() -> result.setResult(found(instance, false, mayWrite))),
						() -> result.setErrorResult(
								new NotFoundException("instance %s of service %s was removed".formatted(id, name)))),
				() -> result.setResult(found(now, !reachability.reachable(), mayWrite)), result));
		return result;
	}

	private ResponseEntity<InstanceList> listed(ServiceName name, String subscriber, InstanceList state, boolean stale,
			List<String> tags, String zone) {
		if (subscriber != null) {
			blocking.delivered(name, subscriber, state.revision());
		}
		// The zone's view is of all the service's instances; a tag filter then picks
		// some.
		InstanceList seen = ZoneView.of(state, zone);
		InstanceList answered = tags.isEmpty() ? seen : seen
			.with(seen.instances().stream().filter(instance -> Tags.carryAll(instance.tags(), tags)).toList());
		return Headers.ok(stale).header(Headers.INDEX, Long.toString(state.revision())).body(answered);
	}

	/**
	 * The instance with its checks as they are now; without them, and marked stale, when
	 * the database cannot be read.
	 */
	private ResponseEntity<InstanceDetail> found(InstanceView instance, boolean stale, boolean mayWrite) {
		List<CheckView> read;
		try {
			read = checks.of(ServiceName.of(instance.service()), InstanceId.of(instance.id()))
				.stream()
				.map(check -> CheckView.of(check, mayWrite))
				.toList();
		}
		catch (DataAccessException ex) {
			read = null;
		}
		return Headers.ok(stale || read == null)
			.eTag(Revisions.etag(instance.revision()))
			.header(Headers.INDEX, Long.toString(instance.revision()))
			.body(new InstanceDetail(instance, read));
	}

	private static Optional<InstanceView> find(InstanceList state, InstanceId id) {
		return state.instances().stream().filter(instance -> instance.id().equals(id.value())).findFirst();
	}

}

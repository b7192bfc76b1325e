package dev.ballast.registry;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.ballast.web.OutcomeUnknownException;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * One caller's write handed to {@link GroupCommit}, with the request context its audit
 * entry reads, and its life: queued, taken into a group by the committer (or abandoned by
 * a caller that stopped waiting first), run, and answered with its group's outcome.
 */
final class GroupWrite<T> {

	private static final int QUEUED = 0;

	private static final int TAKEN = 1;

	private static final int ABANDONED = 2;

	/** Its work ran in an attempt of its group: its outcome is its group's. */
	private static final int RAN = 3;

	private final WriteBehind.Target target;

	private final Supplier<T> work;

	private final SecurityContext security;

	private final RequestAttributes request;

	private final AtomicInteger state = new AtomicInteger(QUEUED);

	private final CompletableFuture<T> outcome = new CompletableFuture<>();

	private T result;

	GroupWrite(WriteBehind.Target target, Supplier<T> work, SecurityContext security, RequestAttributes request) {
		this.target = target;
		this.work = work;
		this.security = security;
		this.request = request;
	}

	WriteBehind.Target target() {
		return target;
	}

	/** Claims the write for the committer, unless its caller gave up on it. */
	boolean take() {
		return state.compareAndSet(QUEUED, TAKEN);
	}

	/**
	 * Whether the write is to run: its caller still waits, or it ran in an earlier
	 * attempt of its group (whose outcome its caller was told is unknown).
	 */
	boolean begin() {
		return state.compareAndSet(TAKEN, RAN) || state.get() == RAN;
	}

	/**
	 * Runs the work on the committer's thread as if on the caller's; the failure, if any.
	 */
	Throwable run() {
		SecurityContextHolder.setContext(security);
		RequestContextHolder.setRequestAttributes(request);
		try {
			result = work.get();
			return null;
		}
		catch (RuntimeException | Error ex) {
			return ex;
		}
		finally {
			RequestContextHolder.resetRequestAttributes();
			SecurityContextHolder.clearContext();
		}
	}

	/**
	 * Its caller stops waiting: a write that has not run yet never will; one that ran
	 * commits or not with its group.
	 */
	private RuntimeException giveUp(String why) {
		if (state.compareAndSet(QUEUED, ABANDONED) || state.compareAndSet(TAKEN, ABANDONED)) {
			return new QueryTimeoutException(why + "; it was dropped before it ran");
		}
		return new OutcomeUnknownException(
				why + " and may still commit; read the instance to see whether it did, or send the write again");
	}

	void succeed() {
		outcome.complete(result);
	}

	void fail(Throwable failure) {
		outcome.completeExceptionally(failure);
	}

	T outcome(Duration wait) {
		try {
			return outcome.get(wait.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (ex.getCause() instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException(ex.getCause());
		}
		catch (TimeoutException ex) {
			throw giveUp("the write was not committed within %s".formatted(wait));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw giveUp("interrupted while waiting for the write to commit");
		}
	}

}

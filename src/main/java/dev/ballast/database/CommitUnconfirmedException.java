package dev.ballast.database;

import org.springframework.transaction.TransactionException;

/**
 * A COMMIT that PostgreSQL did not confirm ({@link ConfirmedCommits}): the write may have
 * taken effect, or may yet be lost in a failover, so it must not be acknowledged; nor may
 * it be answered as one that wrote nothing. Answered 503 with an unknown outcome: the
 * client retries with the same Idempotency-Key, or reads to see. A transaction's failure
 * like any other to the periodic jobs, which run again.
 */
public final class CommitUnconfirmedException extends TransactionException {

	CommitUnconfirmedException(String detail, Throwable cause) {
		super(detail, cause);
	}

}

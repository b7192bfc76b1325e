package dev.ballast.database;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionException;

/**
 * Runs the body of a module's timer, so that every timer treats the database the same
 * way: a job that needs the database is skipped while it is unreachable (its work waits
 * in memory or is caught up by the next run), a failure to reach or use the database is
 * logged at WARN once per streak of failures rather than every second, and an unexpected
 * failure is logged at ERROR. Nothing is thrown back to the scheduler: the next run is
 * the retry.
 */
@Component
public class PeriodicJobs {

	private static final Logger log = LoggerFactory.getLogger(PeriodicJobs.class);

	private final Reachability reachability;

	/** The jobs whose last run failed on the database, by name. */
	private final Set<String> failing = ConcurrentHashMap.newKeySet();

	PeriodicJobs(Reachability reachability) {
		this.reachability = reachability;
	}

	/**
	 * Runs {@code job} now if the database is reachable; otherwise does nothing.
	 * @param name what the job does, for the log ("Lease sweep")
	 */
	public void whenReachable(String name, Runnable job) {
		if (reachability.reachable()) {
			run(name, job);
		}
	}

	/**
	 * Runs {@code job} now, reachable database or not: for jobs that serve from memory or
	 * check reachability themselves.
	 * @param name what the job does, for the log ("Stream upkeep")
	 */
	public void run(String name, Runnable job) {
		try {
			job.run();
			if (failing.remove(name)) {
				log.info("{} runs again", name);
			}
		}
		catch (DataAccessException | TransactionException ex) {
			if (failing.add(name)) {
				log.warn("{} did not run: {}", name, ex.getMessage());
			}
			else {
				log.debug("{} did not run again: {}", name, ex.getMessage());
			}
		}
		catch (RuntimeException ex) {
			log.error("{} failed; it runs again at its next time", name, ex);
		}
	}

}

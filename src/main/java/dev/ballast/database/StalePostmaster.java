package dev.ballast.database;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL server left behind when a previous run of this node was killed.
 *
 * <p>
 * The embedded server runs as its own process, so a {@code kill -9} of the JVM leaves it
 * running with the data directory locked, and the next start would fail. Before starting,
 * the orphan is asked to shut down (SIGTERM: its clients died with the JVM, so a smart
 * shutdown finishes at once), killed if it does not within the timeout, and a
 * {@code postmaster.pid} whose process is gone is removed.
 */
final class StalePostmaster {

	private static final Logger log = LoggerFactory.getLogger(StalePostmaster.class);

	private final Path pidFile;

	StalePostmaster(Path pgData) {
		this.pidFile = pgData.resolve("postmaster.pid");
	}

	void clear(Duration timeout) throws IOException {
		if (!Files.exists(pidFile)) {
			return;
		}
		Optional<ProcessHandle> orphan = recordedPid().flatMap(ProcessHandle::of)
			.filter(ProcessHandle::isAlive)
			.filter(StalePostmaster::isPostgres);
		if (orphan.isPresent()) {
			stop(orphan.get(), timeout);
		}
		log.warn("Removing stale {} left by a previous run", pidFile);
		Files.deleteIfExists(pidFile);
	}

	private Optional<Long> recordedPid() throws IOException {
		try (var lines = Files.lines(pidFile)) {
			return lines.findFirst().map(String::strip).filter(s -> s.matches("\\d{1,10}")).map(Long::valueOf);
		}
	}

	private static boolean isPostgres(ProcessHandle process) {
		return process.info().command().map(command -> command.endsWith("/postgres")).orElse(false);
	}

	private static void stop(ProcessHandle orphan, Duration timeout) {
		log.warn("Stopping orphaned PostgreSQL server (pid {}) left by a previous run", orphan.pid());
		orphan.destroy();
		if (!awaitExit(orphan, timeout)) {
			log.warn("PostgreSQL server (pid {}) did not stop within {}; killing it", orphan.pid(), timeout);
			orphan.destroyForcibly();
			awaitExit(orphan, timeout);
		}
	}

	private static boolean awaitExit(ProcessHandle process, Duration timeout) {
		try {
			process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
			return true;
		}
		catch (TimeoutException ex) {
			return false;
		}
		catch (ExecutionException ex) {
			return !process.isAlive();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return !process.isAlive();
		}
	}

}

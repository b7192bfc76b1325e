package dev.ballast;

import java.time.Clock;
import java.time.Duration;

import sun.misc.Signal;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
@ConfigurationPropertiesScan
public class BallastApplication {

	/**
	 * The one source of time; tests replace it to drive leases and ramps. It ticks in
	 * whole milliseconds: PostgreSQL keeps microseconds and clients read milliseconds, so
	 * every time is cut once, here, and reads back identical from the database.
	 */
	@Bean
	Clock clock() {
		return Clock.tick(Clock.systemUTC(), Duration.ofMillis(1));
	}

	public static void main(String[] args) {
		stopCleanlyOnTerm();
		SpringApplication.run(BallastApplication.class, args);
	}

	/**
	 * SIGTERM, the way supervisors and {@code kill} ask a process to stop, stops the node
	 * as every stop does (Spring's shutdown hook: requests and streams drained, absorbed
	 * heartbeats written, the embedded PostgreSQL stopped) and then exits 0, not the
	 * JVM's 143: a stop that was asked for is not a failure.
	 * {@code ./mvnw spring-boot:run}, which passes the signal on to the node it started,
	 * then ends without BUILD FAILURE (it takes any exit but 0 and 130 for a crash).
	 */
	private static void stopCleanlyOnTerm() {
		Signal.handle(new Signal("TERM"),
				signal -> Thread.ofPlatform().name("ballast-stop").start(() -> System.exit(0)));
	}

}

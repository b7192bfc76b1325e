package dev.ballast;

import java.time.Clock;
import java.time.Duration;

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
		SpringApplication.run(BallastApplication.class, args);
	}

}

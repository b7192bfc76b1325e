package dev.ballast.client;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The client promises Java 17: its build compiles against Java 17's API
 * ({@code --release 17}), and CI runs these tests on a JDK 17
 * ({@code -Dballast.test.java-home}); this test fails if they ran on another.
 */
class TestedJavaTest {

	@Test
	void runsOnTheJavaTheBuildWasAskedFor() throws IOException {
		String asked = System.getProperty("ballast.test.java-home");
		assumeTrue(asked != null && !asked.isBlank() && !asked.startsWith("${"), "no test Java was asked for");

		Path running = Path.of(System.getProperty("java.home")).toRealPath();
		assertThat(running).isEqualTo(Path.of(asked).toRealPath());
		System.out.println("client tests ran on Java " + Runtime.version() + " at " + running);
	}

}

package dev.ballast;

import org.junit.jupiter.api.Test;

import org.springframework.modulith.core.ApplicationModules;

/**
 * Holds the module boundaries: {@code weight} depends on nothing, no cycles between
 * capabilities, and modules use only each other's public types.
 */
class ModularityTest {

	@Test
	void modulesRespectTheirBoundaries() {
		ApplicationModules.of(BallastApplication.class).verify();
	}

}

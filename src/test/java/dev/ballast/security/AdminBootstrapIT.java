package dev.ballast.security;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import dev.ballast.support.Api;
import dev.ballast.support.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The first admin token of a fresh registry, as an operator meets it: the packaged jar,
 * its own data directory, no token given.
 */
class AdminBootstrapIT {

	@TempDir
	Path dataDir;

	@Test
	void withoutATokenGivenOneIsGeneratedIntoAnOwnerOnlyFileAndOnlyItsPathIsLogged() throws Exception {
		Path log = Path.of("target", "admin-bootstrap-it.log");
		Files.deleteIfExists(log);
		Path file = dataDir.resolve("admin.token");
		String secret;
		try (Node node = Node.start(dataDir, log, "--BALLAST_BOOTSTRAP_ADMIN_TOKEN=")) {
			assertThat(file).exists();
			assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
			secret = Files.readString(file).strip();
			assertThat(secret).matches("blst_[A-Za-z0-9_-]{43}");
			assertThat(Api.on(node.port()).as(secret).get("/v1/tokens").status()).isEqualTo(200);
			assertThat(Api.on(node.port()).as(null).get("/v1/tokens").status()).isEqualTo(401);
		}
		String logged = Files.readString(log);
		assertThat(logged).contains(file.toAbsolutePath().toString()).doesNotContain(secret);

		// Restarted, the registry has an admin token: the file and the token stay as they
		// were.
		try (Node again = Node.start(dataDir, log, "--BALLAST_BOOTSTRAP_ADMIN_TOKEN=")) {
			assertThat(Files.readString(file).strip()).isEqualTo(secret);
			assertThat(Api.on(again.port()).as(secret).get("/v1/tokens").json().size()).isEqualTo(1);
		}
	}

	@Test
	void aGivenTokenBecomesTheAdminAndNoFileIsWritten() throws Exception {
		Path log = Path.of("target", "admin-bootstrap-given-it.log");
		String given = "given-admin-token-0123456789-abcdefghij";
		try (Node node = Node.start(dataDir, log, "--BALLAST_BOOTSTRAP_ADMIN_TOKEN=" + given)) {
			assertThat(Api.on(node.port()).as(given).get("/v1/tokens").status()).isEqualTo(200);
			assertThat(dataDir.resolve("admin.token")).doesNotExist();
		}
		assertThat(Files.readString(log)).doesNotContain(given);
	}

	@Test
	void aShortGivenTokenStopsTheStart() {
		Path log = Path.of("target", "admin-bootstrap-short-it.log");
		assertThatIllegalStateException()
			.isThrownBy(() -> Node.start(dataDir, log, "--BALLAST_BOOTSTRAP_ADMIN_TOKEN=admin"))
			.withMessageContaining("exited");
	}

}

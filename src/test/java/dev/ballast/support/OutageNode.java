package dev.ballast.support;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A registry node on an {@link OutageDatabase} of its own, for a test that stops and
 * restarts the node's PostgreSQL: the database starts first and stops last.
 *
 * @param postgres the node's database, which the test stops and starts
 * @param node the node under test
 */
public record OutageNode(OutageDatabase postgres, OtherNode node) implements AutoCloseable {

	/**
	 * Starts the database with its data in {@code dataDirectory}, then a node on it with
	 * {@code properties}; a node that fails to start leaves no database behind.
	 */
	public static OutageNode start(Path dataDirectory, String... properties) throws IOException {
		OutageDatabase postgres = OutageDatabase.startIn(dataDirectory);
		try {
			return new OutageNode(postgres, OtherNode.startOn(postgres.server(), properties));
		}
		catch (RuntimeException ex) {
			postgres.close();
			throw ex;
		}
	}

	@Override
	public void close() throws IOException {
		try {
			node.close();
		}
		finally {
			postgres.close();
		}
	}

}

package dev.ballast.instance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many clients writing to one service at once: every accepted write gets its own
 * revision, revisions have no gaps, and replaying the change log gives exactly the stored
 * state.
 */
@RegistryTest
class ConcurrentWritesTest {

	private static final int CLIENTS = 8;

	private static final int WRITES_PER_CLIENT = 30;

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Test
	void concurrentWritersGetContiguousRevisionsAndTheChangeLogReplaysToTheState() throws Exception {
		String service = Names.service("race");
		Api api = Api.on(port);
		List<Future<Integer>> clients = new ArrayList<>();
		try (ExecutorService pool = Executors.newFixedThreadPool(CLIENTS)) {
			for (int c = 0; c < CLIENTS; c++) {
				int client = c;
				clients.add(pool.submit(() -> write(api, service, client)));
			}
			pool.shutdown();
			assertThat(pool.awaitTermination(120, TimeUnit.SECONDS)).isTrue();
		}
		int accepted = 0;
		for (Future<Integer> client : clients) {
			accepted += client.get();
		}

		List<Long> revisions = jdbc.sql("SELECT revision FROM change_log WHERE service = ? ORDER BY revision")
			.param(service)
			.query(Long.class)
			.list();
		long serviceRevision = jdbc.sql("SELECT revision FROM service WHERE name = ?")
			.param(service)
			.query(Long.class)
			.single();
		// Writes equal to the stored state (200 without a change) spend no revision.
		assertThat(accepted).isGreaterThanOrEqualTo(revisions.size());
		assertThat(revisions.size()).isGreaterThan(CLIENTS * WRITES_PER_CLIENT / 4);
		assertThat(serviceRevision).isEqualTo(revisions.size());
		for (int i = 0; i < revisions.size(); i++) {
			assertThat(revisions.get(i)).isEqualTo(i + 1L);
		}
		assertThat(replay(service)).isEqualTo(stored(api, service));
	}

	/**
	 * Each client creates, reweights and deletes instances, some shared with other
	 * clients.
	 */
	private static int write(Api api, String service, int client) {
		int accepted = 0;
		for (int k = 0; k < WRITES_PER_CLIENT; k++) {
			String id = "i-" + (k % 5 == 0 ? "shared" : client + "-" + (k % 3));
			String path = "/v1/services/%s/instances/%s".formatted(service, id);
			int status = switch (k % 4) {
				case 0, 1 ->
					api.put(path, Registration.at("10.0.0.%d".formatted(client), 1000 + k).weight(k * 10)).status();
				case 2 -> api.patch(path, "{\"weight\":%d}".formatted(k)).status();
				default -> api.delete(path).status();
			};
			// 409: the guard refusing a weight lowered past the budget, which writes
			// nothing.
			assertThat(status).isIn(200, 201, 204, 404, 409);
			if (status != 404 && status != 409) {
				accepted++;
			}
		}
		return accepted;
	}

	private Map<String, Integer> replay(String service) {
		JsonMapper json = JsonMapper.builder().build();
		Map<String, Integer> state = new HashMap<>();
		jdbc.sql("SELECT kind, instance_id, payload::text FROM change_log WHERE service = ? ORDER BY revision")
			.param(service)
			.query((rs, row) -> {
				if (rs.getString(1).equals("REMOVE")) {
					state.remove(rs.getString(2));
				}
				else {
					JsonNode payload = json.readTree(rs.getString(3));
					state.put(rs.getString(2), payload.get("weight").intValue());
				}
				return null;
			})
			.list();
		return state;
	}

	private static Map<String, Integer> stored(Api api, String service) {
		Map<String, Integer> state = new HashMap<>();
		api.get("/v1/services/%s/instances".formatted(service))
			.json()
			.get("instances")
			.forEach(instance -> state.put(instance.get("id").asString(), instance.get("weight").intValue()));
		return state;
	}

}

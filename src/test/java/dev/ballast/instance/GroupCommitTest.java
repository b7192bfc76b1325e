package dev.ballast.instance;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Registrations that arrive while the committer is busy are committed together, in one
 * transaction, in the order they arrived; each is guarded against the state its earlier
 * group-mates left, and one that is refused takes none of the others with it.
 */
@RegistryTest
class GroupCommitTest {

	@LocalServerPort
	int port;

	@Autowired
	GroupCommit groups;

	@Autowired
	JdbcClient jdbc;

	@Test
	void writesQueuedMeanwhileCommitTogetherAndARefusedOneTakesNoneOfThemDown() throws Exception {
		String service = Names.service("group");
		Api api = Api.on(port);
		for (int i = 1; i <= 4; i++) {
			assertThat(api.put(path(service, i), Registration.at("10.0.0." + i, 8080).weight(100)).status())
				.isEqualTo(201);
		}
		long before = revision(service);
		try (ExecutorService pool = Executors.newFixedThreadPool(4);
				HeldCommitter committer = new HeldCommitter(groups, pool)) {
			// One quarter of the nominal weight may be unroutable: the first weight 0
			// fits,
			// the second, counted after the first, does not.
			Future<Integer> first = committer.queued(() -> weight(api, service, 1, 0), 1);
			Future<Integer> second = committer.queued(() -> weight(api, service, 2, 0), 2);
			Future<Integer> third = committer.queued(() -> weight(api, service, 3, 70), 3);
			committer.release();

			assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(200);
			assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(409);
			assertThat(third.get(30, TimeUnit.SECONDS)).isEqualTo(200);
		}
		assertThat(revision(service)).isEqualTo(before + 2);
		List<String> logged = jdbc
			.sql("SELECT instance_id || ':' || xmin::text FROM change_log WHERE service = ? AND revision > ? "
					+ "ORDER BY revision")
			.params(service, before)
			.query(String.class)
			.list();
		assertThat(logged).hasSize(2);
		assertThat(logged.get(0)).startsWith("i-1:");
		assertThat(logged.get(1)).startsWith("i-3:");
		// Both rows were written by one transaction.
		assertThat(logged.get(0).substring(4)).isEqualTo(logged.get(1).substring(4));
		assertThat(jdbc
			.sql("SELECT instance FROM audit_event WHERE service = ? AND action = 'instance.replace' " + "ORDER BY id")
			.param(service)
			.query(String.class)
			.list()).containsExactly("i-1", "i-3");
		assertThat(api.get(path(service, 2)).json().get("weight").intValue()).isEqualTo(100);
	}

	@Test
	void aLoneWriteIsCommittedWithoutWaitingForCompany() {
		String service = Names.service("alone");
		long began = System.nanoTime();
		Object txid = groups.run(ServiceName.of(service), null,
				() -> jdbc.sql("SELECT txid_current()").query(Long.class).single());
		assertThat(txid).isInstanceOf(Long.class);
		assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(5));
		assertThat(groups.waiting()).isZero();
	}

	private static int weight(Api api, String service, int instance, int weight) {
		return api.put(path(service, instance), Registration.at("10.0.0." + instance, 8080).weight(weight)).status();
	}

	private static String path(String service, int instance) {
		return "/v1/services/" + service + "/instances/i-" + instance;
	}

	private long revision(String service) {
		return jdbc.sql("SELECT revision FROM service WHERE name = ?").param(service).query(Long.class).single();
	}

}

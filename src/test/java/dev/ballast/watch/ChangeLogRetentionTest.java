package dev.ballast.watch;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

@RegistryTest
class ChangeLogRetentionTest {

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Autowired
	ChangeLogRetention retention;

	@Test
	void deletesOnlyChangesOlderThanTheRetention() {
		Api api = Api.on(port);
		String service = Names.service("retention");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("h", 80));
		api.patch(a, "{\"weight\":1}");
		api.patch(a, "{\"weight\":2}");
		jdbc.sql("UPDATE change_log SET changed_at = now() - interval '2 hours' WHERE service = ? AND revision <= 2")
			.param(service)
			.update();

		assertThat(retention.prune()).isGreaterThanOrEqualTo(2);

		assertThat(jdbc.sql("SELECT revision FROM change_log WHERE service = ? ORDER BY revision")
			.param(service)
			.query(Long.class)
			.list()).containsExactly(3L);
	}

}

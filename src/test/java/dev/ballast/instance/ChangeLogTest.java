package dev.ballast.instance;

import java.util.List;

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
 * Every mutation bumps the service revision and writes exactly one change-log row with
 * that revision; refused and no-op writes write none.
 */
@RegistryTest
class ChangeLogTest {

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Test
	void writesOneRowPerRevisionInOrderAndNoneForRefusedOrNoOpWrites() {
		Api api = Api.on(port);
		String service = Names.service("log");
		String a = "/v1/services/%s/instances/a".formatted(service);

		api.put(a, Registration.at("h", 1).weight(5));
		api.put(a, Registration.at("h", 1).weight(5));
		api.put(a, "{\"address\":\"h\",\"port\":1,\"weight\":\"6\"}");
		api.patch(a, "{\"weight\":6}");
		api.patch("/v1/services/" + service, "{\"defaultWeight\":9}");
		api.patch(a, "{\"weight\":-6}");
		api.delete(a);

		List<String> rows = jdbc
			.sql("SELECT revision || ':' || kind || ':' || coalesce(payload ->> 'weight', '-') FROM change_log "
					+ "WHERE service = ? ORDER BY revision")
			.param(service)
			.query(String.class)
			.list();
		assertThat(rows).containsExactly("1:UPSERT:5", "2:UPSERT:6", "3:SERVICE:-", "4:REMOVE:-");
		assertThat(jdbc.sql("SELECT revision FROM service WHERE name = ?").param(service).query(Long.class).single())
			.isEqualTo(4);
		String weightType = jdbc
			.sql("SELECT jsonb_typeof(payload -> 'weight') FROM change_log WHERE service = ? AND revision = 2")
			.param(service)
			.query(String.class)
			.single();
		assertThat(weightType).isEqualTo("number");
	}

}

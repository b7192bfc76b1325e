package dev.ballast.instance;

import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The database itself refuses what the application would never write. */
@RegistryTest
class DatabaseConstraintsTest {

	@Autowired
	JdbcClient jdbc;

	String service;

	@BeforeEach
	void setUp() {
		service = Names.service("sql");
		jdbc.sql("INSERT INTO service (name) VALUES (?)").param(service).update();
	}

	private int insert(int weight, int port, String metadata) {
		return jdbc.sql("""
				INSERT INTO instance (service, id, address, port, weight, effective_weight, nominal_weight, metadata,
				                      lease_ttl_seconds, last_renewed_at, registered_at, revision)
				VALUES (?, 'x', 'h', ?, ?, 0, 0, ?::jsonb, 30, now(), now(), 1)""")
			.params(service, port, weight, metadata)
			.update();
	}

	@Test
	void acceptsAValidRow() {
		assertThat(insert(10000, 65535, "{\"version\":\"1\"}")).isEqualTo(1);
	}

	@ParameterizedTest
	@ValueSource(ints = { -1, 10001, Integer.MIN_VALUE, Integer.MAX_VALUE })
	void refusesWeightsOutOfRange(int weight) {
		assertThatThrownBy(() -> insert(weight, 80, "{}")).isInstanceOf(DataIntegrityViolationException.class)
			.hasMessageContaining("weight");
	}

	@ParameterizedTest
	@ValueSource(ints = { 0, 65536 })
	void refusesPortsOutOfRange(int port) {
		assertThatThrownBy(() -> insert(1, port, "{}")).isInstanceOf(DataIntegrityViolationException.class);
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"weight\":\"0\"}", "{\"Weight\":\"0\"}", "{\"WEIGHT\":\"1\"}", "{\"ballast.x\":\"1\"}",
			"{\"v\":1}", "[]", "\"weight\"" })
	void refusesWeightAndReservedKeysAndNonStringValuesInMetadata(String metadata) {
		assertThatThrownBy(() -> insert(1, 80, metadata)).isInstanceOf(DataIntegrityViolationException.class)
			.hasMessageContaining("metadata");
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"\"}", "{a,a}", "{NULL}", "{\"tab\u0009\"}", "{{a},{b}}" })
	void refusesTagsTheBorderWouldRefuse(String tags) {
		insert(1, 80, "{}");
		assertThatThrownBy(() -> jdbc.sql("UPDATE instance SET tags = ?::text[] WHERE service = ?")
			.params(tags.replace("\\u0009", "\t"), service)
			.update()).isInstanceOf(DataIntegrityViolationException.class).hasMessageContaining("instance_tags_valid");
	}

	@Test
	void refusesMoreThan32TagsOrATagOver128Characters() {
		insert(1, 80, "{}");
		assertThatThrownBy(() -> jdbc
			.sql("UPDATE instance SET tags = ARRAY(SELECT 't' || n FROM generate_series(1, 33) n) WHERE service = ?")
			.param(service)
			.update()).isInstanceOf(DataIntegrityViolationException.class).hasMessageContaining("instance_tags_valid");
		assertThatThrownBy(() -> jdbc.sql("UPDATE instance SET tags = ARRAY[repeat('x', 129)] WHERE service = ?")
			.param(service)
			.update()).isInstanceOf(DataIntegrityViolationException.class).hasMessageContaining("instance_tags_valid");
		assertThat(jdbc
			.sql("UPDATE instance SET tags = ARRAY(SELECT repeat('x', 127) || n FROM generate_series(1, 9) n) "
					+ "|| ARRAY(SELECT repeat('y', 126) || n FROM generate_series(10, 32) n) WHERE service = ?")
			.param(service)
			.update()).isEqualTo(1);
	}

	@Test
	void refusesAStringWeightInAChangeLogPayload() {
		assertThatThrownBy(() -> jdbc.sql("""
				INSERT INTO change_log (service, revision, kind, instance_id, payload, changed_at)
				VALUES (?, 1, 'UPSERT', 'x', '{"weight":"0","effectiveWeight":0}', now())""").param(service).update())
			.isInstanceOf(DataIntegrityViolationException.class);
		assertThatThrownBy(() -> jdbc.sql("""
				INSERT INTO change_log (service, revision, kind, instance_id, payload, changed_at)
				VALUES (?, 1, 'UPSERT', 'x', '{"weight":1.5,"effectiveWeight":0}', now())""").param(service).update())
			.isInstanceOf(DataIntegrityViolationException.class);
	}

	@Test
	void refusesABadServiceName() {
		assertThatThrownBy(() -> jdbc.sql("INSERT INTO service (name) VALUES ('Bad_Name')").update())
			.isInstanceOf(DataIntegrityViolationException.class);
	}

}

package dev.ballast.registry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.generators.SourceDSL.lists;

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

	/**
	 * V70 rewrote the metadata and tags rules in PL/pgSQL for speed; they must still
	 * answer exactly what the SQL bodies of V1 and V20 answer, which are the oracle here.
	 */
	@Test
	void theMetadataRuleAnswersAsItsFirstDefinition() {
		qt(300).forAll(metadata()).checkAssert(metadata -> {
			List<Boolean> both = jdbc.sql("""
					SELECT ballast_metadata_valid(m), jsonb_typeof(m) = 'object'
					   AND NOT EXISTS (SELECT 1 FROM jsonb_each(m) AS e(key, value)
					                    WHERE lower(e.key) = 'weight' OR lower(e.key) LIKE 'ballast.%'
					                       OR jsonb_typeof(e.value) <> 'string')
					  FROM (SELECT ?::jsonb AS m) AS given""")
				.param(metadata)
				.query((row, n) -> List.of(row.getBoolean(1), row.getBoolean(2)))
				.single();
			assertThat(both.get(0)).as(metadata).isEqualTo(both.get(1));
		});
	}

	@Test
	void theTagsRuleAnswersAsItsFirstDefinition() {
		qt(300).forAll(tags()).checkAssert(tags -> {
			List<Boolean> both = jdbc.sql("""
					SELECT ballast_tags_valid(t), cardinality(t) <= 32
					   AND (cardinality(t) = 0 OR array_ndims(t) = 1)
					   AND array_position(t, NULL) IS NULL
					   AND NOT EXISTS (SELECT 1 FROM unnest(t) AS tag
					                    WHERE char_length(tag) NOT BETWEEN 1 AND 128
					                       OR tag ~ '[\\u0001-\\u001f\\u007f-\\u009f]')
					   AND (SELECT count(DISTINCT tag) FROM unnest(t) AS tag) = cardinality(t)
					  FROM (SELECT ?::text[] AS t) AS given""")
				.param(tags)
				.query((row, n) -> List.of(row.getBoolean(1), row.getBoolean(2)))
				.single();
			assertThat(both.get(0)).as(Arrays.toString(tags)).isEqualTo(both.get(1));
		});
	}

	@Test
	void tagsWhoseSubscriptsDoNotStartAtOneAreCheckedAllTheSame() {
		assertThat(jdbc
			.sql("SELECT ballast_tags_valid('[0:1]={a,b}'), ballast_tags_valid('[0:1]={a,a}'), "
					+ "ballast_tags_valid('[5:6]={a,\"\"}')")
			.query((row, n) -> List.of(row.getBoolean(1), row.getBoolean(2), row.getBoolean(3)))
			.single()).containsExactly(true, false, false);
	}

	/**
	 * JSON text: mostly objects of keys near the forbidden ones, with values of every
	 * type.
	 */
	private static Gen<String> metadata() {
		Gen<String> keys = Generate.pick(List.of("a", "b", "version", "weight", "Weight", "WEIGHT", "weights", "wEiGhT",
				"ballast.", "ballast.x", "Ballast.Y", "ballast", "ballastx", "x.ballast.y", "é", "\\t", ""));
		Gen<String> values = Generate.pick(List.of("\"v\"", "\"\"", "\"0\"", "1", "0", "true", "null", "{}", "[]"));
		Gen<String> objects = lists().of(keys.zip(values, (key, value) -> "\"" + key + "\":" + value))
			.ofSizeBetween(0, 5)
			.map(members -> "{" + String.join(",", members) + "}");
		return objects.mix(Generate.pick(List.of("[]", "\"weight\"", "1", "null", "[{\"a\":\"b\"}]")), 10);
	}

	/**
	 * Arrays from a small pool, so that duplicates, nulls and the size limit all come up.
	 */
	private static Gen<String[]> tags() {
		List<String> pool = new ArrayList<>(
				List.of("a", "b", "A", "", "x".repeat(128), "y".repeat(129), "tab\t", "del\u007f", "é", "t="));
		pool.add(null);
		Gen<String> tag = Generate.pick(pool);
		Gen<List<String>> few = lists().of(tag).ofSizeBetween(0, 6);
		Gen<List<String>> many = lists()
			.of(Generate.pick(List.of("p", "q")).zip(Generate.range(0, 40), (prefix, n) -> prefix + n))
			.ofSizeBetween(30, 34);
		return few.mix(many, 30).map(list -> list.toArray(String[]::new));
	}

}

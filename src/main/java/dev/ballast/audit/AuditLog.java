package dev.ballast.audit;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** Reads the audit log, newest first. */
@Component
class AuditLog {

	private final JdbcClient jdbc;

	private final ObjectMapper json;

	AuditLog(JdbcClient jdbc, ObjectMapper json) {
		this.jdbc = jdbc;
		this.json = json;
	}

	/**
	 * Up to {@code query.limit() + 1} events: the one past the limit only tells that
	 * another page exists.
	 */
	List<AuditEventView> read(AuditQuery query) {
		List<String> conditions = new ArrayList<>();
		List<Object> params = new ArrayList<>();
		if (query.service() != null) {
			conditions.add("service = ?");
			params.add(query.service());
		}
		if (query.instance() != null) {
			conditions.add("instance = ?");
			params.add(query.instance());
		}
		if (query.since() != null) {
			conditions.add("at >= ?");
			params.add(Timestamp.from(query.since()));
		}
		if (query.before() != null) {
			conditions.add("id < ?");
			params.add(query.before());
		}
		params.add(query.limit() + 1);
		String where = conditions.isEmpty() ? "" : "WHERE " + String.join(" AND ", conditions);
		return jdbc.sql("""
				SELECT id, at, token_id, token_name, action, service, instance, before::text, after::text,
				       normalizations, forced, request_id, details::text
				  FROM audit_event %s ORDER BY id DESC LIMIT ?""".formatted(where))
			.params(params)
			.query((rs, row) -> event(rs))
			.list();
	}

	private AuditEventView event(ResultSet rs) throws SQLException {
		return new AuditEventView(rs.getLong("id"), rs.getTimestamp("at").toInstant(), rs.getString("token_id"),
				rs.getString("token_name"), rs.getString("action"), rs.getString("service"), rs.getString("instance"),
				tree(rs.getString("before")), tree(rs.getString("after")), strings(rs.getArray("normalizations")),
				rs.getBoolean("forced"), rs.getString("request_id"), tree(rs.getString("details")));
	}

	private JsonNode tree(String text) {
		return text == null ? null : json.readTree(text);
	}

	private static List<String> strings(Array array) throws SQLException {
		return array == null ? List.of() : List.of((String[]) array.getArray());
	}

}

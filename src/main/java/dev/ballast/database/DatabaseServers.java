package dev.ballast.database;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.postgresql.Driver;

import org.springframework.stereotype.Component;

/**
 * The PostgreSQL servers this node's pool connects to, as its JDBC URL names them (every
 * member of a replicated one, the embedded server's loopback port): what the node talks
 * to, which a health check must never be aimed at. Read with the driver's own URL parser,
 * so that what is listed is what the driver dials.
 */
@Component
public class DatabaseServers {

	private final List<Server> servers;

	DatabaseServers(DataSource dataSource) throws SQLException {
		HikariDataSource pool = dataSource.isWrapperFor(HikariDataSource.class)
				? dataSource.unwrap(HikariDataSource.class) : null;
		this.servers = pool == null || pool.getJdbcUrl() == null ? List.of() : parse(pool.getJdbcUrl());
	}

	/** The servers, in the URL's order; empty when the pool has no JDBC URL. */
	public List<Server> servers() {
		return servers;
	}

	static List<Server> parse(String jdbcUrl) {
		Properties parsed = Driver.parseURL(jdbcUrl, null);
		if (parsed == null) {
			return List.of();
		}
		String[] hosts = parsed.getProperty("PGHOST", "localhost").split(",");
		String[] ports = parsed.getProperty("PGPORT", "5432").split(",");
		List<Server> servers = new ArrayList<>();
		for (int i = 0; i < hosts.length; i++) {
			String port = i < ports.length ? ports[i] : ports[ports.length - 1];
			servers.add(new Server(hosts[i], Integer.parseInt(port)));
		}
		return List.copyOf(servers);
	}

	/**
	 * One server.
	 *
	 * @param host a host name or an IP address, as written in the URL (an IPv6 address
	 * without brackets)
	 * @param port its port
	 */
	public record Server(String host, int port) {

		public Server {
			host = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
		}

	}

}

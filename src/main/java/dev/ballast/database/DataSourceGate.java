package dev.ballast.database;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Puts the application's data source behind a {@link GatedDataSource}, so that every user
 * of it (transactions, JDBC templates, the change listener) fails fast while the database
 * is unreachable; and makes every connection it opens one to a primary.
 *
 * <p>
 * With a multi-host URL ({@code jdbc:postgresql://h1,h2/ballast}) the driver takes the
 * first host that answers unless told {@code targetServerType=primary}: after a failover
 * that is often the demoted old primary, now a standby, where every write fails and
 * {@code LISTEN} is refused, for as long as it runs. So the rule is set here, on the
 * pool, and not left to each URL; the change feed's pool and the reachability probe copy
 * the pool's properties and inherit it. A URL asking for another server type is refused
 * at start: a node writes, so a standby is never of use to it.
 *
 * <p>
 * Every transaction on it commits through {@link ConfirmedCommits}: a commit the server
 * did not confirm is never acknowledged.
 */
@Configuration(proxyBeanMethods = false)
class DataSourceGate {

	static final String TARGET_SERVER_TYPE = "targetServerType";

	private static final Pattern URL_TARGET = Pattern.compile("[?&]" + TARGET_SERVER_TYPE + "=([^&]*)",
			Pattern.CASE_INSENSITIVE);

	@Bean
	static BeanPostProcessor gatedDataSource() {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String name) {
				if (bean instanceof DataSource pool && !(bean instanceof GatedDataSource)
						&& "dataSource".equals(name)) {
					if (pool instanceof HikariDataSource hikari) {
						primaryOnly(hikari);
					}
					return new GatedDataSource(pool);
				}
				return bean;
			}

		};
	}

	@Bean
	PlatformTransactionManager transactionManager(DataSource dataSource) {
		return new ConfirmedCommits(dataSource);
	}

	/** Makes the pool connect to a primary only; refuses a URL that asks for another. */
	static void primaryOnly(HikariDataSource pool) {
		String asked = pool.getJdbcUrl() == null ? null : urlTarget(pool.getJdbcUrl());
		if (asked == null) {
			asked = pool.getDataSourceProperties().getProperty(TARGET_SERVER_TYPE);
		}
		if (asked != null && !isPrimary(asked)) {
			throw new IllegalStateException(("spring.datasource asks for %s=%s; a registry node writes, so it "
					+ "connects to a primary only: use %s=primary or leave it out")
				.formatted(TARGET_SERVER_TYPE, asked, TARGET_SERVER_TYPE));
		}
		pool.addDataSourceProperty(TARGET_SERVER_TYPE, "primary");
	}

	private static String urlTarget(String url) {
		Matcher matcher = URL_TARGET.matcher(url);
		return matcher.find() ? matcher.group(1) : null;
	}

	/** The driver's name for it, and the one it still takes from before 42.3. */
	private static boolean isPrimary(String type) {
		String lower = type.toLowerCase(Locale.ROOT);
		return lower.equals("primary") || lower.equals("master");
	}

}

package dev.ballast.database;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Every pool connects to a primary only, whatever the URL says: the rule is added when
 * the URL is silent and a URL asking for a standby is refused at start.
 */
class PrimaryOnlyTest {

	@Test
	void asksForThePrimaryWhenTheUrlIsSilent() {
		try (HikariDataSource pool = pool("jdbc:postgresql://a:5432,b:5432/ballast")) {
			DataSourceGate.primaryOnly(pool);
			assertThat(pool.getDataSourceProperties().getProperty("targetServerType")).isEqualTo("primary");
		}
	}

	@Test
	void keepsAUrlThatAsksForThePrimary() {
		try (HikariDataSource pool = pool("jdbc:postgresql://a,b/ballast?ssl=false&targetServerType=primary")) {
			DataSourceGate.primaryOnly(pool);
			assertThat(pool.getDataSourceProperties().getProperty("targetServerType")).isEqualTo("primary");
		}
	}

	@Test
	void refusesAUrlThatWouldTakeAStandby() {
		for (String type : new String[] { "any", "secondary", "preferSecondary", "preferPrimary" }) {
			try (HikariDataSource pool = pool("jdbc:postgresql://a,b/ballast?targetServerType=" + type)) {
				assertThatIllegalStateException().as(type)
					.isThrownBy(() -> DataSourceGate.primaryOnly(pool))
					.withMessageContaining("targetServerType=" + type)
					.withMessageContaining("primary only");
			}
		}
	}

	@Test
	void refusesAPropertyThatWouldTakeAStandby() {
		try (HikariDataSource pool = pool("jdbc:postgresql://a,b/ballast")) {
			pool.addDataSourceProperty("targetServerType", "any");
			assertThatIllegalStateException().isThrownBy(() -> DataSourceGate.primaryOnly(pool));
		}
	}

	private static HikariDataSource pool(String url) {
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl(url);
		return pool;
	}

}

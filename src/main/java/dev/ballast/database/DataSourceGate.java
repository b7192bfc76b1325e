package dev.ballast.database;

import javax.sql.DataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Puts the application's data source behind a {@link GatedDataSource}, so that every user
 * of it (transactions, JDBC templates, the change listener) fails fast while the database
 * is unreachable.
 */
@Configuration(proxyBeanMethods = false)
class DataSourceGate {

	@Bean
	static BeanPostProcessor gatedDataSource() {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String name) {
				if (bean instanceof DataSource pool && !(bean instanceof GatedDataSource)
						&& "dataSource".equals(name)) {
					return new GatedDataSource(pool);
				}
				return bean;
			}

		};
	}

}

package dev.ballast;

import dev.ballast.support.Api;
import dev.ballast.support.RegistryTest;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** What operators reach besides the API: health probes, metrics, Swagger UI. */
@RegistryTest
class OperationsEndpointsTest {

	@LocalServerPort
	int port;

	@Autowired
	ApplicationContext context;

	@Test
	void exposesHealthProbesAndPrometheusMetrics() {
		Api api = Api.unchecked(port);

		assertThat(api.get("/actuator/health").body()).contains("\"UP\"");
		assertThat(api.get("/actuator/health/liveness").status()).isEqualTo(200);
		assertThat(api.get("/actuator/health/readiness").status()).isEqualTo(200);
		assertThat(api.get("/actuator/prometheus").body()).contains("jvm_memory_used_bytes");
	}

	@Test
	void servesSwaggerUi() {
		Api api = Api.unchecked(port);

		assertThat(api.get("/swagger-ui.html").status()).isIn(200, 302);
		assertThat(api.get("/swagger-ui/index.html").body()).containsIgnoringCase("swagger");
	}

	@Test
	void startsNoEmbeddedDatabaseWhenADatasourceIsConfigured() {
		assertThat(context.getBeanNamesForType(EmbeddedPostgres.class)).isEmpty();
	}

}

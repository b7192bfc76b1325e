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
	void servesSwaggerUiWithABearerAuthorizeButtonToAnyone() {
		Api anonymous = Api.unchecked(port).as(null);

		assertThat(anonymous.get("/swagger-ui.html").status()).isIn(200, 302);
		assertThat(anonymous.get("/swagger-ui/index.html").body()).containsIgnoringCase("swagger");
		var document = anonymous.get("/v3/api-docs").json();
		// Swagger UI offers Authorize for each security scheme and sends the token with
		// every request the global requirement covers.
		assertThat(document.at("/components/securitySchemes/bearer/type").asString()).isEqualTo("http");
		assertThat(document.at("/components/securitySchemes/bearer/scheme").asString()).isEqualTo("bearer");
		assertThat(document.at("/security/0").has("bearer")).isTrue();
		assertThat(anonymous.get("/actuator/prometheus").status()).isEqualTo(401);
	}

	@Test
	void startsNoEmbeddedDatabaseWhenADatasourceIsConfigured() {
		assertThat(context.getBeanNamesForType(EmbeddedPostgres.class)).isEmpty();
	}

}

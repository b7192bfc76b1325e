package dev.ballast.web;

import java.sql.SQLException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database that is up and refused a request is answered as such, with its own problem
 * type, never as an outage, and in the same words inside Spring MVC and on a short way.
 */
class DatabaseRefusalTest {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final String PATH = "/v1/services/s/instances/a";

	private static final PessimisticLockingFailureException DEADLOCK = new PessimisticLockingFailureException(
			"UPDATE service", new SQLException("ERROR: deadlock detected", "40P01"));

	@AfterEach
	void forgetRequest() {
		RequestContextHolder.resetRequestAttributes();
	}

	@Test
	void aDeadlockGivenUpOnIsAConflictNotAnOutage() {
		ResponseEntity<Object> answer = answerInSpringMvc(DEADLOCK);

		assertThat(answer.getStatusCode().value()).isEqualTo(503);
		assertThat(Integer.parseInt(answer.getHeaders().getFirst("Retry-After"))).isBetween(1, 3);
		Problem problem = (Problem) answer.getBody();
		assertThat(problem.type()).isEqualTo("https://ballast.dev/problems/database-conflict");
		assertThat(problem.detail()).contains("deadlock", "the database is up", "nothing was written")
			.doesNotContain("unavailable");
		assertThat(problem.title()).doesNotContainIgnoringCase("unavailable");
		assertThat(problem.instance()).isEqualTo(PATH);
	}

	@Test
	void aShortWayAnswersARefusalInTheWordsOfTheFullWay() throws Exception {
		for (RuntimeException refused : new RuntimeException[] { DEADLOCK, new CannotAcquireLockException("SELECT",
				new SQLException("canceling statement due to lock timeout", "55P03")) }) {
			MockHttpServletResponse shortWay = new MockHttpServletResponse();
			DatabaseRefusal.of(refused).orElseThrow().send(new MockHttpServletRequest("PUT", PATH), shortWay);
			ResponseEntity<Object> fullWay = answerInSpringMvc(refused);

			assertThat(shortWay.getStatus()).isEqualTo(fullWay.getStatusCode().value());
			assertThat(shortWay.getContentType()).isEqualTo(fullWay.getHeaders().getContentType().toString());
			assertThat(Integer.parseInt(shortWay.getHeader("Retry-After"))).isBetween(1, 3);
			JsonNode shortBody = JSON.readTree(shortWay.getContentAsString());
			assertThat(shortBody).isEqualTo(JSON.valueToTree(fullWay.getBody()));
		}
	}

	@Test
	void anOutageIsNoRefusal() {
		assertThat(DatabaseRefusal
			.of(new CannotGetJdbcConnectionException("no connection", new SQLException("Connection refused", "08001"))))
			.isEmpty();
		ResponseEntity<Object> answer = answerInSpringMvc(
				new CannotGetJdbcConnectionException("no connection", new SQLException("Connection refused", "08001")));
		assertThat(((Problem) answer.getBody()).type()).isEqualTo("https://ballast.dev/problems/database-unavailable");
	}

	private static ResponseEntity<Object> answerInSpringMvc(RuntimeException failure) {
		RequestContextHolder
			.setRequestAttributes(new ServletRequestAttributes(new MockHttpServletRequest("PUT", PATH)));
		return new ProblemResponses().unavailable(failure);
	}

}

package dev.ballast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StreamPositionTest {

	@Test
	void aSingleServiceIdIsThatServicesRevision() {
		assertThat(StreamPosition.parse("42", List.of("payments")).revisions()).isEqualTo(Map.of("payments", 42L));
	}

	@Test
	void aMultiplexedIdNamesTheRevisionOfEachService() {
		assertThat(StreamPosition.parse("a:42,b:17", List.of("a", "b")).revisions())
			.isEqualTo(Map.of("a", 42L, "b", 17L));
	}

	@Test
	void aPlainNumberOnAMultiplexedStreamNamesNoService() {
		assertThat(StreamPosition.parse("42", List.of("a", "b")).revisions()).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "x", "-1", "a:", "a:42,b", "a:42,b:x", "a:-3", "99999999999999999999" })
	void anIdOfNeitherFormNamesNothing(String id) {
		assertThat(StreamPosition.parse(id, List.of("a")).revisions()).isEmpty();
	}

}

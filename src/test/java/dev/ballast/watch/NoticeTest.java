package dev.ballast.watch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class NoticeTest {

	@Test
	void readsTheServiceAndRevisionOfAPayload() {
		assertThat(Notice.parse("pay-ments:42")).isEqualTo(new Notice("pay-ments", 42));
	}

	@Test
	void aPayloadWithoutARevisionAsksForEverythingNew() {
		assertThat(Notice.parse("payments")).isEqualTo(new Notice("payments", Long.MAX_VALUE));
		assertThat(Notice.parse("payments:x")).isEqualTo(new Notice("payments", Long.MAX_VALUE));
		assertThat(Notice.parse(":7")).isEqualTo(new Notice(":7", Long.MAX_VALUE));
	}

}

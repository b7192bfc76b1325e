package dev.ballast.dns;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.ballast.database.Reachability;
import dev.ballast.support.Api;
import dev.ballast.support.OutageNode;
import dev.ballast.support.Registration;
import io.micrometer.core.instrument.MeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Type;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node whose PostgreSQL stops: its DNS answers go on from memory, the same records with
 * the same TTL, counted as stale; a name never read before is SERVFAIL within its bound;
 * once the database is back, changes show again.
 */
class DnsOutageTest {

	static final String SERVICE = "dns-outage";

	@TempDir
	static Path dataDirectory;

	static OutageNode outage;

	@BeforeAll
	static void startDatabaseAndNode() throws IOException {
		outage = OutageNode.start(dataDirectory, "ballast.dns.port=0");
	}

	@AfterAll
	static void stopNodeAndDatabase() throws IOException {
		if (outage != null) {
			outage.close();
		}
	}

	@Test
	void keepsAnsweringFromMemoryWhileTheDatabaseIsDown() throws Exception {
		Api api = Api.on(outage.node().port());
		String instances = "/v1/services/%s/instances".formatted(SERVICE);
		assertThat(api.put(instances + "/a", Registration.at("10.7.0.1", 80).weight(300).leaseTtlSeconds(300)).status())
			.isEqualTo(201);
		assertThat(api.put(instances + "/b", Registration.at("10.7.0.2", 80).weight(100).leaseTtlSeconds(300)).status())
			.isEqualTo(201);
		DnsClient dns = new DnsClient(outage.node().bean(DnsServer.class).port());
		String name = "_%s._tcp.service.ballast.".formatted(SERVICE);
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> weights(dns.udp(name, Type.SRV)).equals(List.of(65_280, 85 * 256)));
		Message before = dns.udp(name, Type.SRV);
		Reachability reachability = outage.node().bean(Reachability.class);
		MeterRegistry meters = outage.node().bean(MeterRegistry.class);

		outage.postgres().stop();
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !reachability.reachable());

		// A few refresh rounds without the database: the same answer every time.
		for (int i = 0; i < 5; i++) {
			Message during = dns.udp(name, Type.SRV);
			assertThat(during.getRcode()).isEqualTo(Rcode.NOERROR);
			assertThat(DnsClient.answers(during)).isEqualTo(DnsClient.answers(before));
			assertThat(DnsClient.answers(during).getFirst().getTTL()).isEqualTo(1);
			Thread.sleep(600);
		}
		assertThat(meters.get("ballast.dns.queries").tag("stale", "true").tag("rcode", "NOERROR").counter().count())
			.isGreaterThanOrEqualTo(5);
		long asked = System.nanoTime();
		assertThat(dns.udp("never-read.service.ballast.", Type.SRV).getRcode()).isEqualTo(Rcode.SERVFAIL);
		assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(Duration.ofSeconds(3));

		outage.postgres().start();
		Awaitility.await().atMost(Duration.ofSeconds(20)).until(reachability::reachable);
		// The pool may still refuse (503) for a moment after the probe is through.
		Awaitility.await()
			.atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(500))
			.until(() -> api.patch(instances + "/b", "{\"weight\":300}").status() == 200);
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> weights(dns.udp(name, Type.SRV)).equals(List.of(65_280, 65_280)));
		assertThat(dns.udp("never-read.service.ballast.", Type.SRV).getRcode()).isEqualTo(Rcode.NXDOMAIN);
	}

	private static List<Integer> weights(Message answer) {
		return DnsClient.answers(answer).stream().map(r -> ((SRVRecord) r).getWeight()).toList();
	}

}

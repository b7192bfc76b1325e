package dev.ballast.dns;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The DNS responder over its real UDP and TCP sockets against a running registry: SRV
 * weights HAProxy reads as Ballast's shares, drains kept at weight 0, the instances not
 * routable for other reasons left out, the names, the answer codes, truncation and TCP.
 */
@RegistryTest
class DnsResponderTest {

	@LocalServerPort
	int port;

	@Autowired
	DnsServer server;

	Api api;

	DnsClient dns;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
		dns = new DnsClient(server.port());
	}

	@Test
	void srvRecordsCarryWeightsHaproxyReadsExactlyAndKeepADrainedInstanceAtZero() {
		String service = Names.service("dns");
		register(service, "a", Registration.at("10.1.0.1", 8001).weight(300));
		register(service, "b", Registration.at("10.1.0.2", 8002).weight(200));
		register(service, "c", Registration.at("fd00::3", 8003).weight(100));
		register(service, "drained", Registration.at("10.1.0.4", 8004).weight(100));
		register(service, "resting", Registration.at("10.1.0.5", 8005).weight(50));
		register(service, "zero", Registration.at("10.1.0.6", 8006).weight(0));
		assertThat(post("/v1/services/%s/instances/drained/drain".formatted(service), "{\"durationSeconds\":0}"))
			.isEqualTo(202);
		assertThat(post("/v1/services/%s/instances/resting/maintenance".formatted(service), "{\"reason\":\"disk\"}"))
			.isEqualTo(202);

		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			Message answer = dns.udp("_%s._tcp.service.ballast.".formatted(service), Type.SRV);
			assertThat(answer.getRcode()).isEqualTo(Rcode.NOERROR);
			assertThat(answer.getHeader().getFlag(Flags.AA)).isTrue();
			Map<Integer, Integer> weightByPort = DnsClient.answers(answer)
				.stream()
				.map(SRVRecord.class::cast)
				.collect(Collectors.toMap(SRVRecord::getPort, SRVRecord::getWeight));
			assertThat(weightByPort)
				.containsExactlyInAnyOrderEntriesOf(Map.of(8001, 255 * 256, 8002, 170 * 256, 8003, 85 * 256, 8004, 0));
		});
		Message answer = dns.udp("_%s._tcp.service.ballast.".formatted(service), Type.SRV);
		Map<String, InetAddress> glue = DnsClient.additional(answer)
			.stream()
			.collect(Collectors.toMap(r -> r.getName().toString(),
					r -> r instanceof ARecord a ? a.getAddress() : ((AAAARecord) r).getAddress()));
		for (Record record : DnsClient.answers(answer)) {
			SRVRecord srv = (SRVRecord) record;
			assertThat(srv.getTarget().toString()).endsWith("." + service + ".instance.ballast.");
			assertThat(glue).containsKey(srv.getTarget().toString());
		}
		assertThat(glue.values().stream().map(InetAddress::getHostAddress)).containsExactlyInAnyOrder("10.1.0.1",
				"10.1.0.2", "fd00:0:0:0:0:0:0:3", "10.1.0.4");
	}

	@Test
	void addressQueriesNameTheRoutableInstancesUnderEveryFormOfTheNameInAnyCase() {
		String service = Names.service("dns");
		register(service, "a", Registration.at("10.2.0.1", 80).weight(100));
		register(service, "b", Registration.at("10.2.0.2", 80).weight(100));
		register(service, "c", Registration.at("10.2.0.3", 80).weight(100));
		register(service, "d", Registration.at("10.2.0.4", 80).weight(100));
		register(service, "v6", Registration.at("fd00::9", 80).weight(100));
		assertThat(post("/v1/services/%s/instances/d/drain".formatted(service), "{\"durationSeconds\":0}"))
			.isEqualTo(202);

		for (String name : List.of(service + ".ballast.", service + ".service.ballast.",
				service.toUpperCase() + ".SERVICE.Ballast.", "_" + service + "._tcp.ballast.")) {
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(addresses(dns.udp(name, Type.A))).as(name)
					.containsExactlyInAnyOrder("10.2.0.1", "10.2.0.2", "10.2.0.3"));
		}
		assertThat(addresses(dns.udp(service + ".ballast.", Type.AAAA))).containsExactly("fd00:0:0:0:0:0:0:9");
		Message mixedCase = dns.udp(service.toUpperCase() + ".Ballast.", Type.A);
		assertThat(mixedCase.getQuestion().getName().toString()).isEqualTo(service.toUpperCase() + ".Ballast.");
	}

	@Test
	void theTargetOfAnSrvRecordResolvesToItsInstance() {
		String service = Names.service("dns");
		register(service, "10.3.0.1:8080", Registration.at("10.3.0.1", 8080).weight(100));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(DnsClient.answers(dns.udp(service + ".ballast.", Type.SRV))).hasSize(1));
		SRVRecord srv = (SRVRecord) DnsClient.answers(dns.udp(service + ".ballast.", Type.SRV)).getFirst();

		Message answer = dns.udp(srv.getTarget().toString(), Type.A);

		assertThat(addresses(answer)).containsExactly("10.3.0.1");
		assertThat(dns.udp("0000000000000000.%s.instance.ballast.".formatted(service), Type.A).getRcode())
			.isEqualTo(Rcode.NXDOMAIN);
	}

	@Test
	void answersNxdomainForAnUnknownServiceAndRefusesNamesOutsideTheDomain() {
		Message unknown = dns.udp(Names.service("nobody") + ".service.ballast.", Type.SRV);
		assertThat(unknown.getRcode()).isEqualTo(Rcode.NXDOMAIN);
		assertThat(unknown.getSection(Section.AUTHORITY)).singleElement()
			.satisfies(soa -> assertThat(soa.getType()).isEqualTo(Type.SOA));
		assertThat(dns.udp("not_a_service.ballast.", Type.SRV).getRcode()).isEqualTo(Rcode.NXDOMAIN);
		assertThat(dns.udp("a.b.c.d.ballast.", Type.SRV).getRcode()).isEqualTo(Rcode.NXDOMAIN);
		assertThat(dns.udp("example.com.", Type.A).getRcode()).isEqualTo(Rcode.REFUSED);
		assertThat(DnsClient.answers(dns.udp("example.com.", Type.A))).isEmpty();
		assertThat(dns.udp("ballast.", Type.SOA).getRcode()).isEqualTo(Rcode.NOERROR);
	}

	@Test
	void answersNotimpForAnotherOpcodeAndFormerrForAPacketThatDoesNotParse() {
		Message update = DnsClient.query("ballast.", Type.SOA, null);
		update.getHeader().setOpcode(org.xbill.DNS.Opcode.UPDATE);
		assertThat(dns.udp(update).getRcode()).isEqualTo(Rcode.NOTIMP);

		byte[] cut = java.util.Arrays.copyOf(DnsClient.query("demo.ballast.", Type.SRV, null).toWire(), 16);
		Message formerr = DnsClient.parse(dns.udp(cut).orElseThrow());
		assertThat(formerr.getRcode()).isEqualTo(Rcode.FORMERR);
		assertThat(formerr.getHeader().getID()).isEqualTo(((cut[0] & 0xff) << 8) | (cut[1] & 0xff));
		// An answer sent to the responder is not answered: no reflection between
		// responders.
		byte[] response = DnsClient.query("demo.ballast.", Type.SRV, null).toWire();
		response[2] |= (byte) 0x80;
		assertThat(dns.udp(response)).isEmpty();
	}

	@Test
	void truncatesWhatDoesNotFitOverUdpAndAnswersInFullOverTcp() {
		String service = Names.service("dns");
		for (int i = 1; i <= 40; i++) {
			register(service, "i" + i, Registration.at("10.4.0." + i, 9000).weight(100));
		}
		String name = service + ".service.ballast.";
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(
					() -> assertThat(DnsClient.answers(dns.tcp(DnsClient.query(name, Type.SRV, null)))).hasSize(40));

		Message classic = dns.udp(DnsClient.query(name, Type.SRV, null));
		assertThat(classic.getHeader().getFlag(Flags.TC)).isTrue();
		assertThat(classic.toWire().length).isLessThanOrEqualTo(512);
		// 40 SRV and 40 A records of this test's names (whose length follows the pid and
		// the test counter) pass 4096 bytes by a few: ask for room enough for all.
		Message edns = dns.udp(DnsClient.query(name, Type.SRV, 8192));
		assertThat(edns.getHeader().getFlag(Flags.TC)).isFalse();
		assertThat(DnsClient.answers(edns)).hasSize(40);
		assertThat(DnsClient.additional(edns)).hasSize(40);
		Message tcp = dns.tcp(DnsClient.query(name, Type.SRV, null));
		assertThat(tcp.getHeader().getFlag(Flags.TC)).isFalse();
		assertThat(DnsClient.answers(tcp)).hasSize(40);
	}

	@Test
	void followsAWeightChangeAndCountsQueriesByTypeAndAnswerCode() {
		String service = Names.service("dns");
		register(service, "a", Registration.at("10.5.0.1", 80).weight(100));
		register(service, "b", Registration.at("10.5.0.2", 80).weight(100));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(weights(dns.udp(service + ".ballast.", Type.SRV)))
				.containsExactlyInAnyOrder(65_280, 65_280));

		assertThat(api.patch("/v1/services/%s/instances/b".formatted(service), "{\"weight\":50}").status())
			.isEqualTo(200);

		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(weights(dns.udp(service + ".ballast.", Type.SRV)))
				.containsExactlyInAnyOrder(65_280, 128 * 256));
		dns.udp("example.com.", Type.A);
		assertThat(Api.unchecked(port).get("/actuator/prometheus").body()).containsPattern(
				"ballast_dns_queries_total\\{[^}]*rcode=\"REFUSED\"[^}]*transport=\"udp\"[^}]*type=\"A\"[^}]*\\} [1-9]");
	}

	private static List<Integer> weights(Message answer) {
		return DnsClient.answers(answer).stream().map(r -> ((SRVRecord) r).getWeight()).toList();
	}

	private static List<String> addresses(Message answer) {
		return DnsClient.answers(answer)
			.stream()
			.map(r -> r instanceof ARecord a ? a.getAddress() : ((AAAARecord) r).getAddress())
			.map(InetAddress::getHostAddress)
			.toList();
	}

	private void register(String service, String id, Registration registration) {
		assertThat(api.put("/v1/services/%s/instances/%s".formatted(service, id), registration).status()).isBetween(200,
				201);
	}

	private int post(String path, String body) {
		return api.send("POST", path, body, null).status();
	}

}

package dev.ballast.dns;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Type;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Zone names, {@code _<service>._tcp.<zone>.service.ballast.}, through the responder's
 * real UDP and TCP sockets: the worked example of docs/locality.md (two zones of three at
 * weight 100, a cap of 20%, two of zone za's three in maintenance) as HAProxy reads it.
 */
@RegistryTest
class DnsZonesTest {

	@LocalServerPort
	int port;

	@Autowired
	DnsServer server;

	Api api;

	DnsClient dns;

	String service;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
		dns = new DnsClient(server.port());
		service = Names.service("dnszone");
	}

	@Test
	void aZonesNameAnswersItsViewWithTheOtherZoneKeptAtWeightZeroUntilItSpills() {
		twoZonesOfThree("za", "zb");
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(srvWeights(dns.udp(zoneName("za"), Type.SRV)))
				.isEqualTo(Map.of(8001, 65_280, 8002, 65_280, 8003, 65_280, 8004, 0, 8005, 0, 8006, 0)));
		maintenance("a2");
		maintenance("a3");

		// Zone za's view is 8000 for a1 and 667/667/666 for zone zb's three (20% across).
		// HAProxy's weight of each is h = round-half-up(255 * view / 8000): 255 and 21,
		// 21, 21 (21.26 and 21.23 rounded), sent as 256 * h; a2 and a3 are left out, as
		// in the flat answer.
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(srvWeights(dns.udp(zoneName("za"), Type.SRV)))
				.isEqualTo(Map.of(8001, 65_280, 8004, 5376, 8005, 5376, 8006, 5376)));
		Map<Integer, Integer> za = srvWeights(dns.tcp(DnsClient.query(zoneName("za"), Type.SRV, null)));
		double across = haproxyShare(za, 8004, 8005, 8006);
		assertThat(across).as("share across zones as HAProxy reads it").isLessThanOrEqualTo(20.0);
		assertThat(srvWeights(dns.tcp(DnsClient.query(zoneName("zb"), Type.SRV, null))))
			.isEqualTo(Map.of(8001, 0, 8004, 65_280, 8005, 65_280, 8006, 65_280));
		assertThat(srvWeights(dns.udp("_" + service + "._tcp.service.ballast.", Type.SRV)))
			.isEqualTo(Map.of(8001, 65_280, 8004, 65_280, 8005, 65_280, 8006, 65_280));
		// An address record carries no weight: it names whom the zone's view routes to.
		assertThat(addresses(dns.udp(zoneName("za"), Type.A))).containsExactlyInAnyOrder("10.7.0.1", "10.7.0.4",
				"10.7.0.5", "10.7.0.6");
		assertThat(addresses(dns.udp(zoneName("zb"), Type.A))).containsExactlyInAnyOrder("10.7.0.4", "10.7.0.5",
				"10.7.0.6");
	}

	@Test
	void aZoneIsMatchedAsSpeltThenWithoutCaseAndAZoneNotInTheServiceGetsTheFlatView() {
		register("a1", "10.7.1.1", 8001, "eu-1.a");
		register("a2", "10.7.1.2", 8002, "eu-1.a");
		register("b1", "10.7.1.3", 8003, "EU-1.b");
		register("c1", "10.7.1.4", 8004, "eu-1.c");
		register("c2", "10.7.1.5", 8005, "EU-1.C");
		cap(20);
		Map<Integer, Integer> a = Map.of(8001, 65_280, 8002, 65_280, 8003, 0, 8004, 0, 8005, 0);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(srvWeights(dns.udp(zoneName("eu-1.a"), Type.SRV))).isEqualTo(a));
		// A zone with a dot is two labels; DNS names compare without case.
		assertThat(srvWeights(dns.udp("_%s._tcp.EU-1.A.SERVICE.ballast.".formatted(service), Type.SRV))).isEqualTo(a);
		assertThat(srvWeights(dns.udp(zoneName("eu-1.B"), Type.SRV)))
			.isEqualTo(Map.of(8001, 0, 8002, 0, 8003, 65_280, 8004, 0, 8005, 0));
		// Two zones that differ only in case: each as spelt, and either spelling of
		// neither is no zone of the service, which is the flat view.
		assertThat(srvWeights(dns.udp(zoneName("eu-1.c"), Type.SRV)))
			.isEqualTo(Map.of(8001, 0, 8002, 0, 8003, 0, 8004, 65_280, 8005, 0));
		assertThat(srvWeights(dns.udp(zoneName("EU-1.C"), Type.SRV)))
			.isEqualTo(Map.of(8001, 0, 8002, 0, 8003, 0, 8004, 0, 8005, 65_280));
		Map<Integer, Integer> flat = Map.of(8001, 65_280, 8002, 65_280, 8003, 65_280, 8004, 65_280, 8005, 65_280);
		assertThat(srvWeights(dns.udp(zoneName("Eu-1.c"), Type.SRV))).isEqualTo(flat);
		assertThat(srvWeights(dns.udp(zoneName("elsewhere"), Type.SRV))).isEqualTo(flat);

		assertThat(api.patch("/v1/services/" + service, "{\"locality\":null}").status()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(srvWeights(dns.udp(zoneName("eu-1.a"), Type.SRV))).isEqualTo(flat));
	}

	@Test
	void aZoneNameNoRegistrationCouldCarryOrAnUnknownServiceIsNxdomain() {
		register("a1", "10.7.2.1", 8001, "za");
		cap(20);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(DnsClient.answers(dns.udp(zoneName("za"), Type.SRV))).hasSize(1));
		for (String name : List.of("_%s._tcp.z\\000a.service.ballast.", "_%s._tcp.z\\.a.service.ballast.",
				"_%s._tcp.z+a.service.ballast.",
				"_%s._tcp.%s.%s.service.ballast.".formatted("%s", "z".repeat(40), "z".repeat(30)),
				"%s._tcp.za.service.ballast.", "_%s._udp.za.service.ballast.", "_%s._tcp.za.instance.ballast.")) {
			Message answer = dns.udp(name.formatted(service), Type.SRV);
			assertThat(answer.getRcode()).as(name).isEqualTo(Rcode.NXDOMAIN);
			assertThat(DnsClient.answers(answer)).as(name).isEmpty();
		}
		assertThat(dns.udp("_%s._tcp.za.service.ballast.".formatted(Names.service("nobody")), Type.SRV).getRcode())
			.isEqualTo(Rcode.NXDOMAIN);
	}

	private void twoZonesOfThree(String a, String b) {
		for (int i = 1; i <= 6; i++) {
			register((i <= 3 ? "a" : "b") + (1 + (i - 1) % 3), "10.7.0." + i, 8000 + i, i <= 3 ? a : b);
		}
		cap(20);
	}

	private void cap(int percent) {
		Api.Reply set = api.patch("/v1/services/" + service,
				"{\"maxUnroutable\":\"100%%\",\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":%d}}"
					.formatted(percent));
		assertThat(set.status()).as(set.body()).isEqualTo(200);
	}

	private void register(String id, String address, int port, String zone) {
		Api.Reply reply = api.put("/v1/services/%s/instances/%s".formatted(service, id),
				Registration.at(address, port).weight(100).zone(zone).leaseTtlSeconds(300));
		assertThat(reply.status()).as(reply.body()).isBetween(200, 201);
	}

	private void maintenance(String id) {
		Api.Reply reply = api.send("POST", "/v1/services/%s/instances/%s/maintenance".formatted(service, id),
				"{\"reason\":\"disk\"}", null);
		assertThat(reply.status()).as(reply.body()).isEqualTo(202);
	}

	private String zoneName(String zone) {
		return "_%s._tcp.%s.service.ballast.".formatted(service, zone);
	}

	/** SRV weight by port, ordered by port. */
	private static Map<Integer, Integer> srvWeights(Message answer) {
		Map<Integer, Integer> weights = new TreeMap<>();
		for (Record record : DnsClient.answers(answer)) {
			SRVRecord srv = (SRVRecord) record;
			weights.put(srv.getPort(), srv.getWeight());
		}
		return weights;
	}

	/**
	 * The share of HAProxy's traffic, in percent, that goes to {@code ports}: HAProxy
	 * (resolvers.c) weighs an SRV weight w as (w + 255) / 256.
	 */
	private static double haproxyShare(Map<Integer, Integer> srv, Integer... ports) {
		double total = srv.values().stream().mapToInt(w -> (w + 255) / 256).sum();
		double part = List.of(ports).stream().mapToInt(p -> (srv.get(p) + 255) / 256).sum();
		return 100 * part / total;
	}

	private static List<String> addresses(Message answer) {
		return DnsClient.answers(answer)
			.stream()
			.map(r -> ((ARecord) r).getAddress())
			.map(InetAddress::getHostAddress)
			.toList();
	}

}

package dev.ballast.dns;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Type;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A name that is registered answers NOERROR with its records on its very first query,
 * however many fresh names are asked at once and whatever else is asked meanwhile:
 * HAProxy drops every server of a name that answers NXDOMAIN.
 */
@RegistryTest
class DnsFirstQueryTest {

	private static final int FRESH = 30;

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
	void manyFreshNamesAskedAtOnceAllAnswerTheirRecords() throws Exception {
		List<String> answers = firstQueriesAtOnce(registered("dfq"));

		assertThat(answers).hasSize(FRESH).allMatch(answer -> answer.equals("NOERROR"));
	}

	@Test
	void manyFreshNamesAskedAtOnceDuringAFloodOfUnknownNamesAllAnswerTheirRecords() throws Exception {
		List<String> fresh = registered("dfu");
		List<String> unknown = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			unknown.add("_%s._tcp.service.ballast.".formatted(Names.service("nope")));
		}
		AtomicBoolean flooding = new AtomicBoolean(true);
		AtomicInteger unknownAnswered = new AtomicInteger();
		ExecutorService flood = Executors.newFixedThreadPool(4);
		try {
			for (int thread = 0; thread < 4; thread++) {
				int first = thread;
				flood.execute(() -> {
					for (int i = first; flooding.get(); i += 4) {
						Message answer = dns.udp(unknown.get(i % unknown.size()), Type.SRV);
						if (answer.getRcode() == Rcode.NXDOMAIN) {
							unknownAnswered.incrementAndGet();
						}
					}
				});
			}
			Thread.sleep(300);

			List<String> answers = firstQueriesAtOnce(fresh);

			assertThat(answers).hasSize(FRESH).allMatch(answer -> answer.equals("NOERROR"));
			assertThat(unknownAnswered).as("unknown names answered NXDOMAIN meanwhile").hasPositiveValue();
		}
		finally {
			flooding.set(false);
			flood.shutdown();
			assertThat(flood.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
	}

	/** Registers {@link #FRESH} services, each with one instance on its own port. */
	private List<String> registered(String prefix) {
		List<String> services = new ArrayList<>();
		for (int i = 0; i < FRESH; i++) {
			String service = Names.service(prefix);
			assertThat(api
				.put("/v1/services/%s/instances/a".formatted(service),
						Registration.at("10.9.0.%d".formatted(i + 1), 9000 + i).weight(100))
				.status()).isBetween(200, 201);
			services.add(service);
		}
		return services;
	}

	/**
	 * Asks each service's SRV for the first time, all released by one barrier; each
	 * answer is its code, or what is wrong with its records.
	 */
	private List<String> firstQueriesAtOnce(List<String> services) throws Exception {
		CyclicBarrier barrier = new CyclicBarrier(services.size());
		ExecutorService askers = Executors.newFixedThreadPool(services.size());
		try {
			List<CompletableFuture<String>> answers = new ArrayList<>();
			for (int i = 0; i < services.size(); i++) {
				String service = services.get(i);
				int expectedPort = 9000 + i;
				answers.add(CompletableFuture.supplyAsync(() -> {
					try {
						barrier.await(10, TimeUnit.SECONDS);
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
					Message answer = dns.udp("_%s._tcp.service.ballast.".formatted(service), Type.SRV);
					String code = Rcode.string(answer.getRcode());
					if (answer.getRcode() != Rcode.NOERROR) {
						return code + " for " + service;
					}
					List<Integer> ports = DnsClient.answers(answer)
						.stream()
						.map(record -> ((SRVRecord) record).getPort())
						.toList();
					return ports.equals(List.of(expectedPort)) ? code : "ports " + ports + " for " + service;
				}, askers));
			}
			List<String> done = new ArrayList<>();
			for (CompletableFuture<String> answer : answers) {
				done.add(answer.get(20, TimeUnit.SECONDS));
			}
			return done;
		}
		finally {
			askers.shutdownNow();
		}
	}

}

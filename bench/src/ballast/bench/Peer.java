package ballast.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What bench/compare.sh asks of each registry, in each one's own API: register an instance,
 * renew its lease, write a value durably and read it back. The generator (Compare.java) is
 * the same for all three; only the requests differ.
 */
abstract class Peer {

	final URI base;

	Peer(URI base) {
		this.base = base;
	}

	static Peer of(String target, URI base) {
		return switch (target) {
			case "ballast" -> new Ballast(base, BenchArgs.authorization());
			case "eureka" -> new Eureka(base);
			case "etcd" -> new Etcd(base);
			default -> throw new IllegalArgumentException("unknown target " + target);
		};
	}

	/** Instance k of the heartbeat population (the same naming as bench/src/ballast/bench/Populate.java). */
	abstract void register(Http1 http, int k, int groups, int ttlSeconds) throws IOException;

	/** Renews instance k's lease; a message when the answer is not a renewal. */
	abstract String renew(Http1 http, int k, int groups) throws IOException;

	/** Readies the store for the writes of {@code tag}, before they are timed. */
	void prepareWrites(Http1 http, String tag) throws IOException {
	}

	/** A durable write of weight to key (tag, client, k): null when acknowledged, else why not. */
	abstract String write(Http1 http, String tag, int client, int k, int weight) throws IOException;

	/** The weight stored under (tag, client, k), -1 when absent. */
	abstract int read(Http1 http, String tag, int client, int k) throws IOException;

	static final Pattern REVISION = Pattern.compile("\"revision\":\"?(\\d+)");

	static final Pattern WEIGHT = Pattern.compile("\"weight\":\"?(\\d+)");

	static String body(String format, Object... args) {
		return format.formatted(args);
	}

	/** Ballast: PUT registrations, POST heartbeats with a bearer token. */
	static final class Ballast extends Peer {

		/** Ballast's longest lease. */
		static final int MAX_TTL_SECONDS = 300;

		final String headers;

		Ballast(URI base, String authorization) {
			super(base);
			this.headers = "Authorization: " + authorization + "\r\n";
		}

		@Override
		void register(Http1 http, int k, int groups, int ttlSeconds) throws IOException {
			Http1.Response response = http.exchange("PUT", "/v1/services/bench-%d/instances/i-%d".formatted(k % groups, k),
					headers + "Content-Type: application/json\r\n",
					body("{\"address\":\"127.0.0.1\",\"port\":%d,\"weight\":%d,\"leaseTtlSeconds\":%d}", 1024 + k % 60000,
							1 + k % 100, Math.min(ttlSeconds, MAX_TTL_SECONDS)));
			if (response.status() != 201 && response.status() != 200) {
				throw new IOException("register i-" + k + ": " + response.status() + " " + response.body());
			}
		}

		@Override
		String renew(Http1 http, int k, int groups) throws IOException {
			Http1.Response response = http.exchange("POST",
					"/v1/services/bench-%d/instances/i-%d/heartbeat".formatted(k % groups, k), headers, null);
			return response.status() == 200 ? null : response.status() + " " + response.body();
		}

		/**
		 * Every write gives an instance a new weight, often far lower than its last, which
		 * the guard refuses once the service's unroutable budget is used up: the budget is
		 * opened (the guard still runs on every write), since this figure measures durable
		 * writes, not the guard.
		 */
		@Override
		void prepareWrites(Http1 http, String tag) throws IOException {
			for (int service = 0; service < 4; service++) {
				// The service exists once it has an instance: client 0's instance k lands in
				// service k % 4, and the load writes it again.
				String failure = write(http, tag, 0, service, 10_000);
				if (failure != null) {
					throw new IOException("first instance of reg-" + tag + "-" + service + ": " + failure);
				}
				Http1.Response opened = http.exchange("PATCH", "/v1/services/reg-%s-%d".formatted(tag, service),
						headers + "Content-Type: application/json\r\n", "{\"maxUnroutable\":\"100%\"}");
				// A build from before the sequence guard (bench/ab.sh against an old jar)
				// has no such setting, and no budget that writes like these spend.
				boolean noSuchBudget = opened.status() == 422 && opened.body().contains("unknown field \"maxUnroutable\"");
				if (opened.status() != 200 && !noSuchBudget) {
					throw new IOException("budget of reg-" + tag + "-" + service + ": " + opened.status() + " "
							+ opened.body());
				}
			}
		}

		@Override
		String write(Http1 http, String tag, int client, int k, int weight) throws IOException {
			Http1.Response response = http.exchange("PUT",
					"/v1/services/reg-%s-%d/instances/i-%d-%d".formatted(tag, k % 4, client, k),
					headers + "Content-Type: application/json\r\n",
					body("{\"address\":\"127.0.0.1\",\"port\":8000,\"weight\":%d,\"leaseTtlSeconds\":300}", weight));
			if (response.status() != 201 && response.status() != 200) {
				return response.status() + " " + response.body();
			}
			Matcher acked = WEIGHT.matcher(response.body());
			return acked.find() && Integer.parseInt(acked.group(1)) == weight ? null
					: "acknowledged another weight: " + response.body();
		}

		@Override
		int read(Http1 http, String tag, int client, int k) throws IOException {
			Http1.Response response = http.exchange("GET",
					"/v1/services/reg-%s-%d/instances/i-%d-%d".formatted(tag, k % 4, client, k), headers, null);
			Matcher weight = WEIGHT.matcher(response.body());
			return response.status() == 200 && weight.find() ? Integer.parseInt(weight.group(1)) : -1;
		}

	}

	/**
	 * Eureka's REST API as its Java client uses it: POST registers (replacing any earlier
	 * registration), PUT renews. The weight travels as metadata.
	 */
	static final class Eureka extends Peer {

		static final String HEADERS = "Accept: application/json\r\n";

		Eureka(URI base) {
			super(base);
		}

		static String instance(String app, String id, int port, int weight, int ttlSeconds) {
			return body("""
					{"instance":{"instanceId":"%s","hostName":"127.0.0.1","app":"%s","ipAddr":"127.0.0.1",\
					"status":"UP","port":{"$":%d,"@enabled":"true"},\
					"dataCenterInfo":{"@class":"com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo","name":"MyOwn"},\
					"leaseInfo":{"renewalIntervalInSecs":30,"durationInSecs":%d},"metadata":{"weight":"%d"}}}""", id, app,
					port, ttlSeconds, weight);
		}

		static String post(Http1 http, String app, String body) throws IOException {
			Http1.Response response = http.exchange("POST", "/eureka/apps/" + app,
					HEADERS + "Content-Type: application/json\r\n", body);
			return response.status() == 204 ? null : response.status() + " " + response.body();
		}

		@Override
		void register(Http1 http, int k, int groups, int ttlSeconds) throws IOException {
			String failure = post(http, "BENCH-" + k % groups,
					instance("BENCH-" + k % groups, "i-" + k, 1024 + k % 60000, 1 + k % 100, ttlSeconds));
			if (failure != null) {
				throw new IOException("register i-" + k + ": " + failure);
			}
		}

		@Override
		String renew(Http1 http, int k, int groups) throws IOException {
			Http1.Response response = http.exchange("PUT", "/eureka/apps/BENCH-%d/i-%d".formatted(k % groups, k),
					HEADERS, null);
			return response.status() == 200 ? null : response.status() + " " + response.body();
		}

		@Override
		String write(Http1 http, String tag, int client, int k, int weight) throws IOException {
			String app = "REG-%s-%d".formatted(tag, k % 4).toUpperCase();
			return post(http, app, instance(app, "i-%d-%d".formatted(client, k), 8000, weight, 300));
		}

		@Override
		int read(Http1 http, String tag, int client, int k) throws IOException {
			// An instance by id is read from the registry itself, not from the response cache.
			String app = "REG-%s-%d".formatted(tag, k % 4).toUpperCase();
			Http1.Response response = http.exchange("GET", "/eureka/apps/%s/i-%d-%d".formatted(app, client, k), HEADERS,
					null);
			Matcher weight = WEIGHT.matcher(response.body());
			return response.status() == 200 && weight.find() ? Integer.parseInt(weight.group(1)) : -1;
		}

	}

	/** etcd 3.4 through its HTTP/JSON gateway: keys and values in base64, lease ids chosen here. */
	static final class Etcd extends Peer {

		static final String HEADERS = "Content-Type: application/json\r\n";

		/** Lease ids of the heartbeat population: BASE + k, so that every run can name them. */
		static final long LEASE_BASE = 0x10000000L;

		Etcd(URI base) {
			super(base);
		}

		static String b64(String text) {
			return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
		}

		static String unb64(String text) {
			return new String(Base64.getDecoder().decode(text), StandardCharsets.UTF_8);
		}

		@Override
		void register(Http1 http, int k, int groups, int ttlSeconds) throws IOException {
			long lease = LEASE_BASE + k;
			Http1.Response granted = http.exchange("POST", "/v3/lease/grant", HEADERS,
					body("{\"TTL\":%d,\"ID\":%d}", ttlSeconds, lease));
			if (granted.status() != 200 || granted.body().contains("\"error\"")) {
				throw new IOException("grant lease of i-" + k + ": " + granted.status() + " " + granted.body());
			}
			Http1.Response put = http.exchange("POST", "/v3/kv/put", HEADERS,
					body("{\"key\":\"%s\",\"value\":\"%s\",\"lease\":%d}", b64("/bench/%d/i-%d".formatted(k % groups, k)),
							b64("127.0.0.1:" + (1024 + k % 60000)), lease));
			if (put.status() != 200) {
				throw new IOException("put i-" + k + ": " + put.status() + " " + put.body());
			}
		}

		@Override
		String renew(Http1 http, int k, int groups) throws IOException {
			Http1.Response response = http.exchange("POST", "/v3/lease/keepalive", HEADERS,
					body("{\"ID\":%d}", LEASE_BASE + k));
			// An unknown or expired lease is answered with a TTL of 0 (left out of the JSON).
			return response.status() == 200 && response.body().contains("\"TTL\":\"") ? null
					: response.status() + " " + response.body();
		}

		@Override
		String write(Http1 http, String tag, int client, int k, int weight) throws IOException {
			Http1.Response response = http.exchange("POST", "/v3/kv/put", HEADERS, body("{\"key\":\"%s\",\"value\":\"%s\"}",
					b64("/reg/%s/%d/i-%d-%d".formatted(tag, k % 4, client, k)), b64(Integer.toString(weight))));
			return response.status() == 200 && REVISION.matcher(response.body()).find() ? null
					: response.status() + " " + response.body();
		}

		static final Pattern VALUE = Pattern.compile("\"value\":\"([^\"]*)\"");

		@Override
		int read(Http1 http, String tag, int client, int k) throws IOException {
			Http1.Response response = http.exchange("POST", "/v3/kv/range", HEADERS,
					body("{\"key\":\"%s\"}", b64("/reg/%s/%d/i-%d-%d".formatted(tag, k % 4, client, k))));
			Matcher value = VALUE.matcher(response.body());
			return response.status() == 200 && value.find() ? Integer.parseInt(unb64(value.group(1))) : -1;
		}

	}

}

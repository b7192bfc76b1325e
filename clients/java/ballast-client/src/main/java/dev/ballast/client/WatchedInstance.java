package dev.ballast.client;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * An instance of a watched service as the registry last described it. A WatchedInstance
 * that exists is valid: its weights are integers from 0 to {@value #MAX_WEIGHT} and its
 * port is from 1 to 65535.
 *
 * @param service the service the instance belongs to
 * @param id the instance id, unique within its service, such as {@code 10.0.0.5:8080}
 * @param address the host name or IP address to connect to
 * @param port the port to connect to, from 1 to 65535
 * @param zone the failure domain, or {@code null} when the instance has none
 * @param weight the weight an operator configured
 * @param effectiveWeight the weight balancers must use, after ramps, maintenance and
 * health
 * @param routable whether the registry lets the instance receive traffic
 * @param mode what an operator or a release asked of the instance, such as
 * {@code SERVING} or {@code DRAINING}; kept as text so that a mode added by a later
 * registry does not make the instance unreadable
 * @param health {@code PASSING} or {@code CRITICAL}, kept as text for the same reason
 * @param metadata free-form labels such as {@code version}
 * @param leaseTtlSeconds how long the instance's lease lasts without a heartbeat
 * @param leaseExpiresAt when the lease expires unless renewed
 * @param revision the service revision of the last change to this instance
 */
public record WatchedInstance(String service, String id, String address, int port, String zone, int weight,
		int effectiveWeight, boolean routable, String mode, String health, Map<String, String> metadata,
		int leaseTtlSeconds, Instant leaseExpiresAt, long revision) {

	/** The highest weight the registry assigns. */
	public static final int MAX_WEIGHT = 10_000;

	/**
	 * @throws NullPointerException if a component other than {@code zone} is null
	 * @throws IllegalArgumentException if a weight or the port is out of range
	 */
	public WatchedInstance {
		Objects.requireNonNull(service, "service");
		Objects.requireNonNull(id, "id");
		Objects.requireNonNull(address, "address");
		Objects.requireNonNull(mode, "mode");
		Objects.requireNonNull(health, "health");
		Objects.requireNonNull(leaseExpiresAt, "leaseExpiresAt");
		metadata = Map.copyOf(Objects.requireNonNull(metadata, "metadata"));
		requireWithin("port", port, 1, 65_535);
		requireWithin("weight", weight, 0, MAX_WEIGHT);
		requireWithin("effectiveWeight", effectiveWeight, 0, MAX_WEIGHT);
	}

	/**
	 * Whether a balancer may send traffic to this instance: it is routable and its
	 * effective weight is above zero.
	 */
	public boolean receivesTraffic() {
		return routable && effectiveWeight > 0;
	}

	/**
	 * Reads an instance as the registry writes it, from what {@link Json#read(String)}
	 * returned, ignoring fields this client does not know so that a newer registry can
	 * add some.
	 * @throws IllegalArgumentException naming the first field that is absent or not
	 * exactly what the wire contract says, such as a weight that is not a JSON integer
	 */
	static WatchedInstance fromJson(Object json) {
		JsonFields fields = JsonFields.of(json);
		return new WatchedInstance(fields.string("service"), fields.string("id"), fields.string("address"),
				fields.integer("port", 1, 65_535), fields.optionalString("zone").orElse(null),
				fields.integer("weight", 0, MAX_WEIGHT), fields.integer("effectiveWeight", 0, MAX_WEIGHT),
				fields.bool("routable"), fields.string("mode"), fields.string("health"), fields.stringMap("metadata"),
				fields.integer("leaseTtlSeconds", 0, Integer.MAX_VALUE), fields.instant("leaseExpiresAt"),
				fields.longInteger("revision", 0, Long.MAX_VALUE));
	}

	private static void requireWithin(String name, int value, int min, int max) {
		if (value < min || value > max) {
			throw new IllegalArgumentException(
					name + " must be an integer from " + min + " to " + max + "; got " + value);
		}
	}

}

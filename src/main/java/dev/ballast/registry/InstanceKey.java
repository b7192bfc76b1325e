package dev.ballast.registry;

/**
 * An instance by name, as the hot heartbeat path keys it.
 *
 * @param service the service name
 * @param id the instance id
 */
public record InstanceKey(String service, String id) {
}

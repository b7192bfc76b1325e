package dev.ballast.instance;

import java.util.List;

import dev.ballast.registry.InstanceView;

/**
 * The outcome of a registration.
 *
 * @param instance the instance as stored
 * @param created whether it was new
 * @param normalized JSON pointers of fields converted under the NORMALIZE policy
 */
record Registration(InstanceView instance, boolean created, List<String> normalized) {
}

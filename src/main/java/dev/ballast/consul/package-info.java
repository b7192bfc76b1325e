/**
 * The Consul-compatible HTTP surface: the subset of Consul 1.x's agent, catalog, health
 * and status endpoints that service-discovery clients use (Spring Cloud Consul, the npm
 * {@code consul} client, consul-template, Traefik), at Consul's own paths. Registrations
 * and check updates enter through the registry module's write path, guard included;
 * answers are read from the same state as every other exit and translated so that every
 * Consul consumer routes exactly the share Ballast means: an instance at effective weight
 * 0 is left out, and a routable one carries its effective weight in {@code Weights} and,
 * as the one weight that ever travels as a string, in {@code Meta.weight}. See
 * {@code docs/consul.md}.
 */
@ApplicationModule(allowedDependencies = { "database", "instance", "lease", "registry", "release", "security", "watch",
		"web", "weight" })
package dev.ballast.consul;

import org.springframework.modulith.ApplicationModule;

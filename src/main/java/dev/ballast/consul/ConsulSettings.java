package dev.ballast.consul;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.consul.*}.
 *
 * @param datacenter the one datacenter Ballast answers as; a {@code ?dc=} naming another
 * is refused
 * @param node the node name every instance is listed on (Ballast has no agents)
 */
@ConfigurationProperties("ballast.consul")
record ConsulSettings(@DefaultValue("dc1") String datacenter, @DefaultValue("ballast") String node) {
}

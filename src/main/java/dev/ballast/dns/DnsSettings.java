package dev.ballast.dns;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.dns.*}.
 *
 * @param port the UDP and TCP port to answer on; the responder is off when unset, and 0
 * picks a free port (logged)
 * @param address the address both sockets bind to
 * @param domain the zone answered for, such as {@code ballast.}; names outside it are
 * refused
 * @param ttl the TTL of every record, and of negative answers
 * @param firstAnswerTimeout how long a query for a service this node does not follow yet
 * waits for its state to be loaded before it is answered SERVFAIL
 * @param udpThreads threads receiving and answering on the UDP socket
 * @param maxTcpConnections open TCP connections at most; one more is closed at once
 * @param tcpTimeout how long a TCP connection may take to send one whole query, and may
 * stay idle between queries
 */
@ConfigurationProperties("ballast.dns")
record DnsSettings(Integer port, @DefaultValue("127.0.0.1") String address, @DefaultValue("ballast.") String domain,
		@DefaultValue("1s") Duration ttl, @DefaultValue("2s") Duration firstAnswerTimeout,
		@DefaultValue("2") int udpThreads, @DefaultValue("64") int maxTcpConnections,
		@DefaultValue("5s") Duration tcpTimeout) {

	boolean enabled() {
		return port != null;
	}

}

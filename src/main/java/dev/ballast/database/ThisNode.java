package dev.ballast.database;

import java.lang.management.ManagementFactory;
import java.util.UUID;

import org.springframework.stereotype.Component;

/**
 * This process among the nodes that share the database, as the tables where nodes say
 * what they are doing name it: a restarted node is a new one.
 */
@Component
public class ThisNode {

	private final String id = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID();

	public String id() {
		return id;
	}

}

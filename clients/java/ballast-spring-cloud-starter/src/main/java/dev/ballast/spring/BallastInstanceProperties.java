package dev.ballast.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * What the application registers as ({@code ballast.instance.*}); every field has a
 * default, as Spring Cloud Consul's and Eureka's have.
 */
@ConfigurationProperties("ballast.instance")
public class BallastInstanceProperties {

	/** Whether the application registers itself; false for one that only calls. */
	private boolean register = true;

	/** The service name; by default {@code spring.application.name}. */
	private String service;

	/** The instance id, stable across restarts; by default {@code <address>:<port>}. */
	private String id;

	/**
	 * The address callers connect to; by default the first non-loopback IP address
	 * (Spring Cloud's {@code spring.cloud.inetutils.*} choose it).
	 */
	private String address;

	/** The port callers connect to; by default the port the web server listens on. */
	private Integer port;

	/** The zone; by default {@code spring.cloud.loadbalancer.zone}, else none. */
	private String zone;

	/** The weight, 0 to 10000; by default the service's {@code defaultWeight} (100). */
	private Integer weight;

	/** Labels ({@code weight} and keys under {@code ballast.} are refused). */
	private Map<String, String> metadata = new LinkedHashMap<>();

	/** Tags, kept in order. */
	private List<String> tags = new ArrayList<>();

	/** The lease, 5 s to 300 s: how long the instance counts without a heartbeat. */
	private Duration leaseTtl = Duration.ofSeconds(30);

	/** How often the lease is renewed; by default a third of the lease. */
	private Duration heartbeatInterval;

	public boolean isRegister() {
		return register;
	}

	public void setRegister(boolean register) {
		this.register = register;
	}

	public String getService() {
		return service;
	}

	public void setService(String service) {
		this.service = service;
	}

	public String getId() {
		return id;
	}

	public void setId(String id) {
		this.id = id;
	}

	public String getAddress() {
		return address;
	}

	public void setAddress(String address) {
		this.address = address;
	}

	public Integer getPort() {
		return port;
	}

	public void setPort(Integer port) {
		this.port = port;
	}

	public String getZone() {
		return zone;
	}

	public void setZone(String zone) {
		this.zone = zone;
	}

	public Integer getWeight() {
		return weight;
	}

	public void setWeight(Integer weight) {
		this.weight = weight;
	}

	public Map<String, String> getMetadata() {
		return metadata;
	}

	public void setMetadata(Map<String, String> metadata) {
		this.metadata = metadata;
	}

	public List<String> getTags() {
		return tags;
	}

	public void setTags(List<String> tags) {
		this.tags = tags;
	}

	public Duration getLeaseTtl() {
		return leaseTtl;
	}

	public void setLeaseTtl(Duration leaseTtl) {
		this.leaseTtl = leaseTtl;
	}

	public Duration getHeartbeatInterval() {
		return heartbeatInterval;
	}

	public void setHeartbeatInterval(Duration heartbeatInterval) {
		this.heartbeatInterval = heartbeatInterval;
	}

}

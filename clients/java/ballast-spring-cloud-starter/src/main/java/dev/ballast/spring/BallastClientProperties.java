package dev.ballast.spring;

import java.net.URI;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How the application reaches Ballast ({@code ballast.client.*}).
 */
@ConfigurationProperties("ballast.client")
public class BallastClientProperties {

	/** Whether the starter does anything at all. */
	private boolean enabled = true;

	/** Any Ballast node, such as {@code http://ballast.internal:8080}. */
	private URI url = URI.create("http://localhost:8080");

	/**
	 * The bearer token: a registrant's for the service this application registers (and a
	 * reader's for the services it calls, if it calls some). Required.
	 */
	private String token;

	/** How long one call to Ballast waits for its answer, connecting included. */
	private Duration timeout = Duration.ofSeconds(5);

	/**
	 * The name this application acknowledges changes under; by default
	 * {@code <application name>-<instance id>}, unique per instance as it must be.
	 */
	private String subscriber;

	/**
	 * On shutdown, how long the instance waits, once drained, for every subscriber to
	 * acknowledge weight 0 before it deregisters anyway. Keep it below
	 * {@code spring.lifecycle.timeout-per-shutdown-phase}.
	 */
	private Duration shutdownDrainTimeout = Duration.ofSeconds(20);

	/**
	 * On shutdown, how long the drain's ramp to weight 0 takes; 0 takes it out at once.
	 */
	private Duration shutdownDrainRamp = Duration.ZERO;

	public boolean isEnabled() {
		return enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public URI getUrl() {
		return url;
	}

	public void setUrl(URI url) {
		this.url = url;
	}

	public String getToken() {
		return token;
	}

	public void setToken(String token) {
		this.token = token;
	}

	public Duration getTimeout() {
		return timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public String getSubscriber() {
		return subscriber;
	}

	public void setSubscriber(String subscriber) {
		this.subscriber = subscriber;
	}

	public Duration getShutdownDrainTimeout() {
		return shutdownDrainTimeout;
	}

	public void setShutdownDrainTimeout(Duration shutdownDrainTimeout) {
		this.shutdownDrainTimeout = shutdownDrainTimeout;
	}

	public Duration getShutdownDrainRamp() {
		return shutdownDrainRamp;
	}

	public void setShutdownDrainRamp(Duration shutdownDrainRamp) {
		this.shutdownDrainRamp = shutdownDrainRamp;
	}

}

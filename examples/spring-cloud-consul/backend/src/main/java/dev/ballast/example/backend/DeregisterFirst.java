package dev.ballast.example.backend;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.cloud.consul.serviceregistry.ConsulAutoServiceRegistration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.stereotype.Component;

/**
 * On SIGTERM, leaves the registry before the web server stops taking calls. Spring Cloud
 * deregisters only when its beans are destroyed, after the graceful shutdown has closed
 * the port: callers that still list the instance (their load balancer caches the list
 * for a while) would meet a closed port. Here the instance deregisters as soon as the
 * context starts closing, then waits {@code example.deregister-grace} so that those
 * caches forget it, and only then lets the web server finish its calls in flight.
 */
@Component
class DeregisterFirst implements ApplicationListener<ContextClosedEvent> {

	private static final Log log = LogFactory.getLog(DeregisterFirst.class);

	private final ConsulAutoServiceRegistration registration;

	private final Duration grace;

	private final ApplicationContext application;

	DeregisterFirst(ConsulAutoServiceRegistration registration,
			@Value("${example.deregister-grace:2s}") Duration grace, ApplicationContext application) {
		this.registration = registration;
		this.grace = grace;
		this.application = application;
	}

	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		// Spring Cloud's child contexts (one per load-balanced client) announce their own
		// closing here too.
		if (event.getApplicationContext() != application || !registration.isRunning()) {
			return;
		}
		registration.stop();
		log.info("deregistered; serving " + grace.toMillis() + " ms more for callers that still list this instance");
		try {
			Thread.sleep(grace);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

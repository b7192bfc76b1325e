package dev.ballast.spring;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.loadbalancer.core.ReactorLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * What each load-balanced service's client context gets (Spring Cloud LoadBalancer makes
 * one per service): the list fed by the service's watch stream and the smooth weighted
 * balancer over it. An application that declares its own beans of these types for a
 * service (with {@code @LoadBalancerClient}) keeps them.
 */
@Configuration(proxyBeanMethods = false)
class BallastLoadBalancerConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ServiceInstanceListSupplier ballastServiceInstanceListSupplier(Environment environment, BallastWatches watches) {
		return new BallastServiceInstanceListSupplier(LoadBalancerClientFactory.getName(environment), watches);
	}

	@Bean
	@ConditionalOnMissingBean
	ReactorLoadBalancer<ServiceInstance> ballastLoadBalancer(ServiceInstanceListSupplier supplier,
			BallastClientProperties properties) {
		return new BallastLoadBalancer(supplier, properties.getTimeout());
	}

}

package dev.ballast.example.frontend;

import java.net.http.HttpClient;
import java.time.Duration;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * A frontend that finds the backends through Spring Cloud Consul's DiscoveryClient (Ballast
 * answering as Consul) and calls them through the weighted Spring Cloud LoadBalancer.
 */
@SpringBootApplication
public class FrontendApplication {

	/** No call to a backend may wait longer than this, to connect or for its answer. */
	static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

	public static void main(String[] args) {
		SpringApplication.run(FrontendApplication.class, args);
	}

	/** Calls to http://backend/ go to an instance the load balancer picks. */
	@Bean
	@LoadBalanced
	RestClient.Builder loadBalanced() {
		JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(
				HttpClient.newBuilder().connectTimeout(CALL_TIMEOUT).build());
		requests.setReadTimeout(CALL_TIMEOUT);
		return RestClient.builder().requestFactory(requests);
	}

}

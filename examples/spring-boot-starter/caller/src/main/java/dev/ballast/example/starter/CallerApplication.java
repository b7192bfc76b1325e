package dev.ballast.example.starter;

import java.net.http.HttpClient;
import java.time.Duration;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * A caller that finds the backends through the Ballast starter's DiscoveryClient and
 * calls them through its load balancer: smooth weighted round robin over the weights the
 * watch stream pushes, never an instance at weight 0.
 */
@SpringBootApplication
public class CallerApplication {

	/** No call to a backend may wait longer than this, to connect or for its answer. */
	static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

	public static void main(String[] args) {
		SpringApplication.run(CallerApplication.class, args);
	}

	/** Calls to http://backend/ go to the instance the load balancer picks. */
	@Bean
	@LoadBalanced
	RestClient.Builder loadBalanced() {
		JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(
				HttpClient.newBuilder().connectTimeout(CALL_TIMEOUT).build());
		requests.setReadTimeout(CALL_TIMEOUT);
		return RestClient.builder().requestFactory(requests);
	}

}

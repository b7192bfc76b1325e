package dev.ballast.instance;

import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.Port;
import dev.ballast.web.IntegerType;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The lease TTL and the port travel as JSON integers in their ranges, read, written and
 * described in the OpenAPI document by their types ({@link IntegerType}).
 */
@Configuration(proxyBeanMethods = false)
class IntegerFields {

	@Bean
	IntegerType<LeaseTtl> leaseTtlType() {
		return new IntegerType<>(LeaseTtl.class, LeaseTtl.MIN, LeaseTtl.MAX, 30, LeaseTtl::ofSeconds,
				LeaseTtl::seconds);
	}

	@Bean
	IntegerType<Port> portType() {
		return new IntegerType<>(Port.class, Port.MIN, Port.MAX, 8080, Port::of, Port::value);
	}

}

package dev.ballast.spring;

import java.util.List;
import java.util.Map;

import dev.ballast.client.InstanceRegistration;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.commons.util.InetUtils;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.Mockito.mock;

class BallastAutoConfigurationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BallastAutoConfiguration.class));

	@Test
	void refusesToStartWithoutATokenNamingTheProperty() {
		runner.withPropertyValues("ballast.instance.register=false").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(BallastConfigurationException.class)
				.hasMessageStartingWith("ballast.client.token: is not set");
		});
	}

	@Test
	void refusesATokenThatCannotTravelInAHeader() {
		runner.withPropertyValues("ballast.instance.register=false", "ballast.client.token=two words")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageStartingWith("ballast.client.token: is not a bearer token"));
	}

	@Test
	void startsWithATokenAndNothingToRegister() {
		runner.withPropertyValues("ballast.instance.register=false", "ballast.client.token=blst_x")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(BallastDiscoveryClient.class)
				.hasSingleBean(BallastReactiveDiscoveryClient.class)
				.doesNotHaveBean(BallastRegistration.class));
	}

	@Test
	void followsTheZoneSpringCloudLoadBalancerIsGiven() {
		runner
			.withPropertyValues("ballast.instance.register=false", "ballast.client.token=blst_x",
					"spring.cloud.loadbalancer.zone=eu-1a")
			.run((context) -> assertThat(context.getBean(BallastWatches.class).zone()).isEqualTo("eu-1a"));
		runner.withPropertyValues("ballast.instance.register=false", "ballast.client.token=blst_x")
			.run((context) -> assertThat(context.getBean(BallastWatches.class).zone()).isNull());
	}

	@Test
	void registersWhatTheApplicationIsWithSensibleDefaults() {
		MockEnvironment environment = new MockEnvironment().withProperty("spring.application.name", "payments")
			.withProperty("local.server.port", "9001")
			.withProperty("spring.cloud.loadbalancer.zone", "eu-1a");
		BallastInstanceProperties instance = new BallastInstanceProperties();
		instance.setAddress("10.0.0.5");
		instance.setMetadata(Map.of("version", "2"));

		InstanceRegistration registration = BallastAutoConfiguration.registration(instance, environment, none());

		assertThat(registration).isEqualTo(new InstanceRegistration("payments", "10.0.0.5:9001", "10.0.0.5", 9001, null,
				"eu-1a", Map.of("version", "2"), List.of(), 30));
	}

	@Test
	void namesThePropertyOfAValueBallastWouldRefuse() {
		MockEnvironment environment = new MockEnvironment().withProperty("spring.application.name", "payments")
			.withProperty("local.server.port", "9001");
		BallastInstanceProperties instance = new BallastInstanceProperties();
		instance.setAddress("10.0.0.5");
		instance.setWeight(10_001);

		assertThatExceptionOfType(BallastConfigurationException.class)
			.isThrownBy(() -> BallastAutoConfiguration.registration(instance, environment, none()))
			.withMessage("ballast.instance.weight: weight must be an integer from 0 to 10000; got 10001");
		instance.setWeight(100);
		instance.setMetadata(Map.of("weight", "0"));
		assertThatExceptionOfType(BallastConfigurationException.class)
			.isThrownBy(() -> BallastAutoConfiguration.registration(instance, environment, none()))
			.satisfies((refusal) -> assertThat(refusal.property()).isEqualTo("ballast.instance.metadata"));
		instance.setMetadata(Map.of());
		assertThatExceptionOfType(BallastConfigurationException.class)
			.isThrownBy(() -> BallastAutoConfiguration.registration(instance,
					new MockEnvironment().withProperty("spring.application.name", "Payments_Service")
						.withProperty("local.server.port", "9001"),
					none()))
			.satisfies((refusal) -> assertThat(refusal.property()).isEqualTo("ballast.instance.service"));
	}

	@SuppressWarnings("unchecked")
	private static ObjectProvider<InetUtils> none() {
		return mock(ObjectProvider.class);
	}

}

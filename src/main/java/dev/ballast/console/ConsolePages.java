package dev.ballast.console;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Where the console is found: {@code /console/} serves its page, and the bare root and
 * {@code /console} send a browser there, since nothing else is served at {@code /}.
 */
@Configuration(proxyBeanMethods = false)
class ConsolePages implements WebMvcConfigurer {

	@Override
	public void addViewControllers(ViewControllerRegistry registry) {
		registry.addRedirectViewController("/", "/console/");
		registry.addRedirectViewController("/console", "/console/");
		registry.addViewController("/console/").setViewName("forward:/console/index.html");
	}

}

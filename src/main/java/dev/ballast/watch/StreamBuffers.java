package dev.ballast.watch;

import org.apache.catalina.connector.Connector;

import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

/**
 * Sizes Tomcat's per-connection buffers for what a registry's connections carry. An open
 * event stream keeps its connection's buffers for its whole life, and a node holds
 * thousands of streams: at Tomcat's defaults each one costs about 105 KiB of heap.
 * Requests and responses here are small (a registration is well under a kilobyte; an
 * event a few hundred bytes), so smaller buffers cost nothing but a few more socket calls
 * for the rare large body, while each stream holds about a fifth less. (The response
 * header buffer is sized in {@code application.yml},
 * {@code server.tomcat.max-http-response-header-size}; the response's own buffers by
 * {@link StreamProtocol}.)
 */
@Component
class StreamBuffers implements TomcatConnectorCustomizer {

	/**
	 * The socket's read and write buffers (8 KiB each by default). Larger writes bypass
	 * the write buffer; the read buffer also sizes the request-line-and-headers buffer,
	 * which adds it to the header limit.
	 */
	static final int SOCKET_BUFFER = 2048;

	@Bean
	static WebServerFactoryCustomizer<TomcatServletWebServerFactory> useStreamProtocol() {
		return factory -> factory.setProtocol(StreamProtocol.class.getName());
	}

	@Override
	public void customize(Connector connector) {
		connector.setProperty("socket.appReadBufSize", Integer.toString(SOCKET_BUFFER));
		connector.setProperty("socket.appWriteBufSize", Integer.toString(SOCKET_BUFFER));
	}

}

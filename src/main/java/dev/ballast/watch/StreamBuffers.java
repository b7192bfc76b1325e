package dev.ballast.watch;

import org.apache.catalina.connector.Connector;

import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

/**
 * Sizes Tomcat's per-connection buffers for what a registry's connections carry. An open
 * event stream keeps its connection's socket buffers for its whole life (the request
 * processor's own buffers it gives back, see {@link StreamConnection}), and a node holds
 * thousands of streams: at Tomcat's defaults the socket's read and write buffers alone
 * are 16 KiB per stream. Requests and responses here are small (a registration is well
 * under a kilobyte; an event a few hundred bytes), so smaller buffers cost nothing but a
 * few more socket calls for the rare large body. (The response header buffer is sized in
 * {@code application.yml}, {@code server.tomcat.max-http-response-header-size}; the
 * response's own buffers by {@link StreamProtocol}.)
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

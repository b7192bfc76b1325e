package dev.ballast.xds;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.ballast.security.StreamCallers;
import dev.ballast.security.TokensInForce;
import dev.ballast.watch.BlockingQueries;
import dev.ballast.watch.KeyedCap;
import dev.ballast.watch.StreamPlaces;
import dev.ballast.watch.Subscribers;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptors;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The ADS server's port (off unless {@code ballast.xds.port} is set): gRPC on its shaded
 * Netty, TLS from a Spring Boot SSL bundle when {@code ballast.xds.ssl-bundle} names one.
 * Requests are read on the transport's threads, sends run on virtual threads; no thread
 * waits for a change.
 */
@Component
class AdsServer implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(AdsServer.class);

	/** No DiscoveryRequest of a sane client comes near this. */
	private static final int MAX_REQUEST_BYTES = 256 * 1024;

	private final XdsSettings settings;

	private final BlockingQueries reads;

	private final StreamCallers callers;

	private final StreamPlaces places;

	private final Subscribers subscribers;

	private final SslBundles bundles;

	private final XdsMeters meters;

	private volatile boolean running;

	private Server server;

	private AdsService service;

	private ExecutorService work;

	private ScheduledExecutorService timer;

	AdsServer(XdsSettings settings, BlockingQueries reads, StreamCallers callers, StreamPlaces places,
			Subscribers subscribers, SslBundles bundles, MeterRegistry meters) {
		this.settings = settings;
		this.reads = reads;
		this.callers = callers;
		this.places = places;
		this.subscribers = subscribers;
		this.bundles = bundles;
		this.meters = new XdsMeters(meters);
	}

	@Override
	public void start() {
		if (!settings.enabled()) {
			return;
		}
		// Envoy's descriptors load on first use, hundreds of proto files: here, not while
		// the first client waits.
		Resources.warmUp();
		work = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("ballast-xds-", 0).factory());
		timer = Executors
			.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("ballast-xds-timer").daemon().factory());
		service = new AdsService(new StreamServices(callers, places, new KeyedCap(settings.maxStreamsPerNodeId()),
				subscribers, new EndpointFeeds(reads, work), settings, work, timer, meters));
		InetSocketAddress address = new InetSocketAddress(settings.address(), settings.port());
		server = NettyServerBuilder.forAddress(address, credentials())
			.addService(ServerInterceptors.intercept(service, AdsService.authorization()))
			// A request is read where it arrives, on the transport's thread: reading one
			// (the caller's token, the names, an ACK) touches only memory and never
			// waits,
			// and most requests are ACKs, one per stream and change. Sends run on work.
			.directExecutor()
			.maxInboundMessageSize(MAX_REQUEST_BYTES)
			.keepAliveTime(settings.keepalive().toMillis(), TimeUnit.MILLISECONDS)
			.keepAliveTimeout(settings.keepaliveTimeout().toMillis(), TimeUnit.MILLISECONDS)
			.permitKeepAliveTime(10, TimeUnit.SECONDS)
			.maxConnectionAge(settings.maxConnectionAge().toMillis(), TimeUnit.MILLISECONDS)
			.maxConnectionAgeGrace(settings.maxConnectionAgeGrace().toMillis(), TimeUnit.MILLISECONDS)
			.build();
		try {
			server.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException(
					"cannot bind the xDS server to %s:%d (ballast.xds.address, ballast.xds.port)"
						.formatted(settings.address(), settings.port()),
					ex);
		}
		running = true;
		log.info("xDS (ADS) server on {} port {} ({})", settings.address(), port(),
				settings.sslBundle() == null ? "plaintext" : "TLS, SSL bundle " + settings.sslBundle());
	}

	private ServerCredentials credentials() {
		if (settings.sslBundle() == null) {
			return InsecureServerCredentials.create();
		}
		SslBundle bundle = bundles.getBundle(settings.sslBundle());
		return TlsServerCredentials.newBuilder().keyManager(bundle.getManagers().getKeyManagers()).build();
	}

	/** The port it listens on; -1 when it is off. */
	int port() {
		return server == null ? -1 : server.getPort();
	}

	@EventListener
	void on(TokensInForce tokens) {
		AdsService serving = service;
		if (serving != null) {
			serving.retain(tokens);
		}
	}

	@Override
	public void stop() {
		if (!running) {
			return;
		}
		running = false;
		service.closeAll();
		server.shutdown();
		try {
			if (!server.awaitTermination(settings.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
				server.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			server.shutdownNow();
			Thread.currentThread().interrupt();
		}
		timer.shutdownNow();
		work.shutdown();
		service = null;
	}

	@Override
	public boolean isRunning() {
		return running;
	}

}

package dev.ballast.probe;

import java.io.IOException;
import java.net.Socket;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckStatus;
import dev.ballast.registry.Port;

/** A TCP connect, as Consul's TCP check: accepted passing, anything else critical. */
final class TcpProbe implements Probe {

	private final Dialer dialer;

	TcpProbe(Dialer dialer) {
		this.dialer = dialer;
	}

	@Override
	public ProbeOutcome run(CheckDefinition check, Port instancePort, Deadline deadline) {
		String target = "TCP connect " + check.target();
		try (Socket socket = dialer.connect(check, instancePort, deadline)) {
			return new ProbeOutcome(CheckStatus.PASSING, target + ": Success");
		}
		catch (IOException | IllegalArgumentException ex) {
			return Probe.failed(target, deadline, ex);
		}
	}

}

package dev.ballast.probe;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

import dev.ballast.instance.CheckDefinition;
import dev.ballast.instance.CheckStatus;

/** A TCP connect, as Consul's TCP check: accepted passing, anything else critical. */
final class TcpProbe implements Probe {

	@Override
	public ProbeOutcome run(CheckDefinition check) {
		String target = "TCP connect " + check.target();
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(check.host(), check.port().value()), (int) check.timeout().toMillis());
			return new ProbeOutcome(CheckStatus.PASSING, target + ": Success");
		}
		catch (SocketTimeoutException ex) {
			return ProbeOutcome.critical(target + ": timed out after " + check.timeout().toMillis() + " ms");
		}
		catch (IOException | IllegalArgumentException ex) {
			return ProbeOutcome.critical(target + ": " + ex.getMessage());
		}
	}

}

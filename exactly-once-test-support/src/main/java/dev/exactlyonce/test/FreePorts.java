package dev.exactlyonce.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Finds free TCP ports on the loopback interface.
 */
public final class FreePorts {

	private FreePorts() {
	}

	/**
	 * A port nobody listens on right now.
	 * @return the port
	 */
	public static int next() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free port", ex);
		}
	}

}

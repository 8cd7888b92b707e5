package dev.exactlyonce.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake NATS server on a free loopback port that announces, in its INFO, that it requires no TLS,
 * and keeps every byte clients send it (a downgrade: someone on the path answering for the server).
 */
final class PlainTextImpostor implements AutoCloseable {

	private static final String INFO = "INFO {\"server_id\":\"IMPOSTOR\",\"version\":\"2.9.10\",\"proto\":1,"
			+ "\"headers\":true,\"max_payload\":1048576,\"auth_required\":true,\"tls_required\":false}\r\n";

	private final ServerSocket socket;

	private final ByteArrayOutputStream received = new ByteArrayOutputStream();

	private final Thread acceptor;

	private final AtomicInteger connections = new AtomicInteger();

	PlainTextImpostor() throws IOException {
		this.socket = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
		this.acceptor = new Thread(this::serve, "plain-text-impostor");
		this.acceptor.setDaemon(true);
		this.acceptor.start();
	}

	int port() {
		return this.socket.getLocalPort();
	}

	/** How many connections the impostor accepted. */
	int connections() {
		return this.connections.get();
	}

	/** What clients sent so far, as text. */
	String received() {
		synchronized (this.received) {
			return this.received.toString(StandardCharsets.ISO_8859_1);
		}
	}

	private void serve() {
		while (!this.socket.isClosed()) {
			try (Socket client = this.socket.accept()) {
				this.connections.incrementAndGet();
				client.setSoTimeout(2000);
				client.getOutputStream().write(INFO.getBytes(StandardCharsets.US_ASCII));
				client.getOutputStream().flush();
				InputStream in = client.getInputStream();
				byte[] buffer = new byte[4096];
				for (int read = in.read(buffer); read > 0; read = in.read(buffer)) {
					synchronized (this.received) {
						this.received.write(buffer, 0, read);
					}
				}
			}
			catch (SocketTimeoutException ex) {
				// the client went quiet: take the next one
			}
			catch (IOException ex) {
				// closed, or the client hung up
			}
		}
	}

	@Override
	public void close() throws Exception {
		this.socket.close();
		this.acceptor.join(5000);
	}

}

package dev.exactlyonce.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on a loopback port that delays every byte by a fixed time in each direction, as a
 * network between a client and its server would. Order is kept; nothing is dropped.
 */
final class LatencyProxy implements AutoCloseable {

	private final ServerSocket listener;

	private final int targetPort;

	private final long delayNanos;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	LatencyProxy(int targetPort, Duration oneWayDelay) throws IOException {
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.targetPort = targetPort;
		this.delayNanos = oneWayDelay.toNanos();
		daemon("latency-proxy-accept", this::accept);
	}

	/** The URL clients connect to instead of the server's. */
	String url() {
		return "nats://127.0.0.1:" + this.listener.getLocalPort();
	}

	private void accept() {
		while (!this.listener.isClosed()) {
			try {
				Socket client = this.listener.accept();
				Socket server = new Socket(InetAddress.getLoopbackAddress(), this.targetPort);
				client.setTcpNoDelay(true);
				server.setTcpNoDelay(true);
				this.sockets.add(client);
				this.sockets.add(server);
				relay(client, server);
				relay(server, client);
			}
			catch (IOException ex) {
				// closed
			}
		}
	}

	private void relay(Socket from, Socket to) throws IOException {
		InputStream in = from.getInputStream();
		OutputStream out = to.getOutputStream();
		BlockingQueue<Chunk> delayed = new LinkedBlockingQueue<>();
		daemon("latency-proxy-read", () -> {
			byte[] buffer = new byte[64 * 1024];
			try {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					delayed.add(new Chunk(System.nanoTime() + this.delayNanos, Arrays.copyOf(buffer, read)));
				}
			}
			catch (IOException ex) {
				// closed
			}
			delayed.add(Chunk.END);
		});
		daemon("latency-proxy-write", () -> {
			try {
				for (Chunk chunk = delayed.take(); chunk != Chunk.END; chunk = delayed.take()) {
					long wait = chunk.due() - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
					out.write(chunk.bytes());
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// closed
			}
			closeQuietly(to);
			closeQuietly(from);
		});
	}

	@Override
	public void close() {
		closeQuietly(this.listener);
		this.sockets.forEach(LatencyProxy::closeQuietly);
	}

	private static void daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// best effort
		}
	}

	private record Chunk(long due, byte[] bytes) {

		static final Chunk END = new Chunk(0, new byte[0]);

	}

}

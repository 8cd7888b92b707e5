package dev.exactlyonce.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A TCP proxy on a free loopback port in front of a server's port that can hold back or delay the
 * server's replies: requests reach the server at once and are applied, while the client sees the
 * answers late, as after a network stall. Client-to-server bytes always pass straight through.
 */
public class TcpProxy implements AutoCloseable {

	private static final byte[] END_OF_STREAM = new byte[0];

	private final int targetPort;

	private final ServerSocket listener;

	private final ExecutorService threads = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "tcp-proxy");
		thread.setDaemon(true);
		return thread;
	});

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final List<Long> requestsWhileHeld = new CopyOnWriteArrayList<>();

	private final Object replies = new Object();

	private boolean held;

	private Duration delay = Duration.ZERO;

	/**
	 * Starts the proxy.
	 * @param targetPort the loopback port of the server
	 */
	public TcpProxy(int targetPort) {
		this.targetPort = targetPort;
		try {
			this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not open a proxy port", ex);
		}
		this.threads.execute(this::accept);
	}

	/**
	 * The port clients connect to.
	 * @return the port
	 */
	public int port() {
		return this.listener.getLocalPort();
	}

	/** Holds every reply from now on until {@link #releaseReplies()}. */
	public void holdReplies() {
		this.requestsWhileHeld.clear();
		synchronized (this.replies) {
			this.held = true;
		}
	}

	/** Passes held replies on, in order, and stops holding. */
	public void releaseReplies() {
		synchronized (this.replies) {
			this.held = false;
			this.replies.notifyAll();
		}
	}

	/**
	 * Delays each reply received from now on by {@code delay}, keeping their order.
	 * @param delay how late replies reach the client; zero for no delay
	 */
	public void delayReplies(Duration delay) {
		synchronized (this.replies) {
			this.delay = delay;
			this.replies.notifyAll();
		}
	}

	/**
	 * When the client sent bytes since {@link #holdReplies()}, in {@link System#nanoTime()}.
	 * @return the times, oldest first
	 */
	public List<Long> requestsWhileHeld() {
		return List.copyOf(this.requestsWhileHeld);
	}

	@Override
	public void close() {
		this.threads.shutdownNow();
		closeQuietly(this.listener);
		this.sockets.forEach(TcpProxy::closeQuietly);
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
				BlockingQueue<Chunk> pending = new LinkedBlockingQueue<>();
				this.threads.execute(() -> forwardRequests(client, server));
				this.threads.execute(() -> readReplies(server, client, pending));
				this.threads.execute(() -> writeReplies(pending, client));
			}
			catch (IOException ex) {
				// closed, or the server refused: the client sees its connection fail
			}
		}
	}

	private void forwardRequests(Socket client, Socket server) {
		byte[] buffer = new byte[64 * 1024];
		try (InputStream in = client.getInputStream(); OutputStream out = server.getOutputStream()) {
			for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
				if (isHeld()) {
					this.requestsWhileHeld.add(System.nanoTime());
				}
				out.write(buffer, 0, read);
				out.flush();
			}
		}
		catch (IOException ex) {
			// connection closed
		}
		finally {
			closeQuietly(server);
		}
	}

	private void readReplies(Socket server, Socket client, BlockingQueue<Chunk> pending) {
		byte[] buffer = new byte[64 * 1024];
		try (InputStream in = server.getInputStream()) {
			for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
				pending.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime() + currentDelay().toNanos()));
			}
		}
		catch (IOException ex) {
			// connection closed
		}
		pending.add(new Chunk(END_OF_STREAM, System.nanoTime()));
	}

	private void writeReplies(BlockingQueue<Chunk> pending, Socket client) {
		try (OutputStream out = client.getOutputStream()) {
			while (true) {
				Chunk chunk = pending.take();
				awaitRelease(chunk.dueAt());
				if (chunk.bytes() == END_OF_STREAM) {
					return;
				}
				out.write(chunk.bytes());
				out.flush();
			}
		}
		catch (IOException ex) {
			// connection closed
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			closeQuietly(client);
		}
	}

	private void awaitRelease(long dueAt) throws InterruptedException {
		synchronized (this.replies) {
			while (this.held || System.nanoTime() < dueAt) {
				long waitMillis = this.held ? 0 : Math.max(1, (dueAt - System.nanoTime()) / 1_000_000);
				this.replies.wait(waitMillis);
			}
		}
	}

	private boolean isHeld() {
		synchronized (this.replies) {
			return this.held;
		}
	}

	private Duration currentDelay() {
		synchronized (this.replies) {
			return this.delay;
		}
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// already closed
		}
	}

	private record Chunk(byte[] bytes, long dueAt) {
	}

}

package dev.exactlyonce.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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
 * server's replies (requests reach the server and are applied, while the client sees the answers
 * late, as after a network stall) and delay the client's requests, as a slow network would. Order
 * is kept in each direction; nothing is dropped, unless the proxy is {@link #cut()}: its connections
 * are closed and new ones refused until {@link #restore()}, as while a server restarts.
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

	private volatile byte[] holdAfter;

	private Duration delay = Duration.ZERO;

	private Duration requestDelay = Duration.ZERO;

	private volatile boolean cut;

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

	/**
	 * Holds every reply from the moment a request carrying {@code marker} passes (the request itself
	 * reaches the server) until {@link #releaseReplies()}: the client's answer to that request is
	 * lost for as long as it is held, after the server applied it.
	 * @param marker text the request carries (e.g. a message id), within one read of the client's bytes
	 */
	public void holdRepliesAfterRequestContaining(String marker) {
		this.holdAfter = marker.getBytes(StandardCharsets.UTF_8);
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
	 * Delays each request sent from now on by {@code delay}, keeping their order.
	 * @param delay how late requests reach the server; zero for no delay
	 */
	public void delayRequests(Duration delay) {
		synchronized (this.replies) {
			this.requestDelay = delay;
		}
	}

	/**
	 * When the client sent bytes since {@link #holdReplies()}, in {@link System#nanoTime()}.
	 * @return the times, oldest first
	 */
	public List<Long> requestsWhileHeld() {
		return List.copyOf(this.requestsWhileHeld);
	}

	/** Closes every connection through the proxy and refuses new ones until {@link #restore()}. */
	public void cut() {
		this.cut = true;
		this.sockets.forEach(TcpProxy::closeQuietly);
		this.sockets.clear();
	}

	/** Accepts connections again after {@link #cut()}. */
	public void restore() {
		this.cut = false;
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
				if (this.cut) {
					closeQuietly(client);
					continue;
				}
				Socket server = new Socket(InetAddress.getLoopbackAddress(), this.targetPort);
				client.setTcpNoDelay(true);
				server.setTcpNoDelay(true);
				this.sockets.add(client);
				this.sockets.add(server);
				BlockingQueue<Chunk> requests = new LinkedBlockingQueue<>();
				BlockingQueue<Chunk> replies = new LinkedBlockingQueue<>();
				this.threads.execute(() -> read(client, requests, true));
				this.threads.execute(() -> write(requests, server, true));
				this.threads.execute(() -> read(server, replies, false));
				this.threads.execute(() -> write(replies, client, false));
			}
			catch (IOException ex) {
				// closed, or the server refused: the client sees its connection fail
			}
		}
	}

	/** Reads one direction into a queue, each chunk due after that direction's current delay. */
	private void read(Socket from, BlockingQueue<Chunk> pending, boolean requests) {
		byte[] buffer = new byte[64 * 1024];
		try (InputStream in = from.getInputStream()) {
			for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
				if (requests && isHeld()) {
					this.requestsWhileHeld.add(System.nanoTime());
				}
				byte[] marker = this.holdAfter;
				if (requests && marker != null && contains(buffer, read, marker)) {
					this.holdAfter = null;
					holdReplies();
				}
				Duration delay = requests ? currentRequestDelay() : currentDelay();
				pending.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime() + delay.toNanos()));
			}
		}
		catch (IOException ex) {
			// connection closed
		}
		pending.add(new Chunk(END_OF_STREAM, System.nanoTime()));
	}

	/** Writes one direction's chunks when due; replies also wait while they are held. */
	private void write(BlockingQueue<Chunk> pending, Socket to, boolean requests) {
		try (OutputStream out = to.getOutputStream()) {
			while (true) {
				Chunk chunk = pending.take();
				awaitDue(chunk.dueAt(), !requests);
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
			closeQuietly(to);
		}
	}

	private void awaitDue(long dueAt, boolean holdable) throws InterruptedException {
		synchronized (this.replies) {
			while ((holdable && this.held) || System.nanoTime() < dueAt) {
				boolean waitForRelease = holdable && this.held;
				long waitMillis = waitForRelease ? 0 : Math.max(1, (dueAt - System.nanoTime()) / 1_000_000);
				this.replies.wait(waitMillis);
			}
		}
	}

	private static boolean contains(byte[] buffer, int length, byte[] marker) {
		for (int from = 0; from + marker.length <= length; from++) {
			if (Arrays.equals(buffer, from, from + marker.length, marker, 0, marker.length)) {
				return true;
			}
		}
		return false;
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

	private Duration currentRequestDelay() {
		synchronized (this.replies) {
			return this.requestDelay;
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

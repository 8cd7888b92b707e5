package dev.exactlyonce.takeover;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Attacks on the restart takeover: a process that is alive and still connected to NATS (its presence
 * subscription registered at the server) but paused, as in a long GC pause or a frozen container,
 * while another process with the same {@code exactlyonce.instance-id} starts (a fixed id on every
 * replica, or a default id two replicas share). The paused process is stopped with SIGSTOP, so its
 * TCP connection, and with it its subscription, stays open.
 */
class TakeoverOfLiveInstanceIntegrationTests {

	private NatsServerProcess nats;

	private final List<ConfigurableApplicationContext> contexts = new CopyOnWriteArrayList<>();

	private final List<Process> processes = new CopyOnWriteArrayList<>();

	@BeforeEach
	void startNats() {
		this.nats = new NatsServerProcess().start();
	}

	@AfterEach
	void stop() throws Exception {
		for (Process process : this.processes) {
			signal(process, "CONT");
			process.destroyForcibly().waitFor();
		}
		this.contexts.forEach(ConfigurableApplicationContext::close);
		this.nats.close();
	}

	/** Control: with the default request timeout (5 s) the paused, connected twin keeps its task. */
	@Test
	void aConnectedTwinPausedLongerThanTheSilenceKeepsItsTaskWithTheDefaultRequestTimeout() throws Exception {
		assertPausedTwinKeepsItsTask();
	}

	/**
	 * Defect: with {@code exactlyonce.nats.request-timeout} above jnats' request clean-up interval (5 s),
	 * the presence request to a connected but silent incarnation ends in jnats' clean-up
	 * {@code CancellationException}, which {@code RestartTakeover.present} reads as "no responders": the
	 * live twin's claim is ended and its message nak'd, and the new process runs step 2 while the
	 * twin is still in it.
	 */
	@Test
	@Disabled("defect found by breaktakeover (fails: the new process runs step 2): enable with the fix")
	void aConnectedTwinPausedLongerThanTheSilenceKeepsItsTaskWithALongRequestTimeout() throws Exception {
		assertPausedTwinKeepsItsTask("exactlyonce.nats.request-timeout=10s");
	}

	/**
	 * Known limitation (docs/guarantees.md), measured: a live twin whose NATS connection drops for a few
	 * seconds (a NATS server restart, a network blip: jnats reconnects after
	 * {@code nats.reconnect-wait}, 2 s, longer than the 1.5 s silence) while a process with its id
	 * starts is taken over, and its step in flight runs a second time while it is still running.
	 */
	@Test
	@Disabled("known limitation found by breaktakeover (fails: the new process runs step 2): enable with a fix")
	void aLiveTwinWhoseConnectionDropsForSecondsKeepsItsTask() throws Exception {
		try (CuttableProxy proxy = new CuttableProxy(this.nats.port())) {
			Process twin = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
					System.getProperty("java.class.path"), TakeoverApp.class.getName(),
					"nats://127.0.0.1:" + proxy.port(), "pod-0")
				.redirectErrorStream(true)
				.start();
			this.processes.add(twin);
			BlockingQueue<String> lines = output(twin);
			awaitLine(lines, "READY");
			publish("t-0");
			awaitLine(lines, TakeoverApp.STEP + " t-0 2");
			Thread.sleep(InstancePresence.MIN_INTERVAL.multipliedBy(10).toMillis());
			proxy.cut();
			long cut = System.nanoTime();
			ConfigurableApplicationContext restarted = TakeoverApp.start(this.nats.url(), "pod-0");
			this.contexts.add(restarted);
			TakeoverApp.Steps steps = restarted.getBean(TakeoverApp.Steps.class);
			Thread.sleep(2_000);
			proxy.restore();
			System.out.println("TAKEOVER-CUT connection refused for " + Duration.ofNanos(System.nanoTime() - cut));
			await().during(Duration.ofSeconds(15))
				.atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(steps.runs("t-0", 2)).as("step 2 of t-0 run by the new process while the "
						+ "twin, reconnected, is still in it").isZero());
			assertThat(twin.isAlive()).isTrue();
		}
	}

	private void assertPausedTwinKeepsItsTask(String... restartedProperties) throws Exception {
		Process twin = worker("pod-0");
		BlockingQueue<String> lines = output(twin);
		awaitLine(lines, "READY");
		publish("t-0");
		awaitLine(lines, TakeoverApp.STEP + " t-0 2");
		Thread.sleep(InstancePresence.MIN_INTERVAL.multipliedBy(10).toMillis());
		signal(twin, "STOP");
		// the twin's record goes unwritten for longer than the silence; its connection stays open
		Thread.sleep(RestartTakeover.SILENCE.plusMillis(500).toMillis());
		ConfigurableApplicationContext restarted = TakeoverApp.start(this.nats.url(), "pod-0", restartedProperties);
		this.contexts.add(restarted);
		TakeoverApp.Steps steps = restarted.getBean(TakeoverApp.Steps.class);
		await().during(Duration.ofSeconds(20))
			.atMost(Duration.ofSeconds(25))
			.untilAsserted(() -> assertThat(steps.runs("t-0", 2)).as("step 2 of t-0 run by the new process while the "
					+ "paused twin, still connected, is in it").isZero());
		assertThat(twin.isAlive()).isTrue();
	}

	private Process worker(String instanceId) throws Exception {
		Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
				System.getProperty("java.class.path"), TakeoverApp.class.getName(), this.nats.url(), instanceId)
			.redirectErrorStream(true)
			.start();
		this.processes.add(process);
		return process;
	}

	private static BlockingQueue<String> output(Process process) {
		BlockingQueue<String> lines = new LinkedBlockingQueue<>();
		Thread reader = new Thread(() -> {
			try (BufferedReader in = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				for (String line = in.readLine(); line != null; line = in.readLine()) {
					lines.add(line);
				}
			}
			catch (java.io.IOException ex) {
				// killed
			}
		}, "worker-output");
		reader.setDaemon(true);
		reader.start();
		return lines;
	}

	private static void awaitLine(BlockingQueue<String> lines, String expected) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		for (String line = ""; !line.equals(expected);) {
			line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
			assertThat(line).as("worker line '" + expected + "' within 60 s").isNotNull();
		}
	}

	private static void signal(Process process, String signal) throws Exception {
		if (process.isAlive()) {
			new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor();
		}
	}

	private void publish(String key) throws Exception {
		try (Connection connection = Nats.connect(this.nats.url())) {
			connection.jetStream()
				.publish(NatsMessage.builder().subject("tasks.t").data("\"" + key + "\"", StandardCharsets.UTF_8).build(),
						PublishOptions.builder().messageId(key).build());
		}
	}

	/**
	 * What the takeover costs a process that never sets an instance id: the puts to the instances
	 * bucket while idle and while running tasks, counted and sized by a subscriber to their subject (printed).
	 */
	@Test
	void costOfTheInstancesBucketIdleAndUnderLoad() throws Exception {
		ConfigurableApplicationContext app = TakeoverApp.start(this.nats.url(), "");
		this.contexts.add(app);
		java.util.concurrent.atomic.AtomicLong puts = new java.util.concurrent.atomic.AtomicLong();
		java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();
		java.util.concurrent.atomic.AtomicLong largest = new java.util.concurrent.atomic.AtomicLong();
		try (Connection connection = Nats.connect(this.nats.url())) {
			connection.createDispatcher((message) -> {
				puts.incrementAndGet();
				bytes.addAndGet(message.getData().length);
				largest.accumulateAndGet(message.getData().length, Math::max);
			}).subscribe("$KV.EXACTLYONCE_INSTANCES.>");
			connection.flush(Duration.ofSeconds(5));
			Thread.sleep(10_000);
			long idle = puts.getAndSet(0);
			bytes.set(0);
			int tasks = 500;
			long started = System.nanoTime();
			for (int i = 0; i < tasks; i++) {
				connection.jetStream()
					.publish(NatsMessage.builder().subject("tasks.t").data("\"c-" + i + "\"", StandardCharsets.UTF_8).build(),
							PublishOptions.builder().messageId("c-" + i).build());
			}
			TakeoverApp.Steps steps = app.getBean(TakeoverApp.Steps.class);
			await().atMost(Duration.ofSeconds(60)).until(() -> steps.runs("c-" + (tasks - 1), 3) == 1);
			double seconds = (System.nanoTime() - started) / 1e9;
			System.out.printf("TAKEOVER-COST idle: %d puts in 10 s; load: %d tasks in %.1f s, %d puts (%.2f per task), "
					+ "%d bytes (%.0f per task), largest record %d bytes%n", idle, tasks, seconds, puts.get(),
					(double) puts.get() / tasks, bytes.get(), (double) bytes.get() / tasks, largest.get());
			assertThat(idle).isPositive();
		}
	}

	/** A TCP proxy whose connections can be cut, refusing new ones until restored. */
	private static final class CuttableProxy implements AutoCloseable {

		private final int target;

		private final java.net.ServerSocket server;

		private final List<java.net.Socket> sockets = new CopyOnWriteArrayList<>();

		private volatile boolean open = true;

		CuttableProxy(int target) throws java.io.IOException {
			this.target = target;
			this.server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
			Thread acceptor = new Thread(this::accept, "cuttable-proxy");
			acceptor.setDaemon(true);
			acceptor.start();
		}

		int port() {
			return this.server.getLocalPort();
		}

		private void accept() {
			while (!this.server.isClosed()) {
				try {
					java.net.Socket client = this.server.accept();
					if (!this.open) {
						client.close();
						continue;
					}
					java.net.Socket upstream = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), this.target);
					this.sockets.add(client);
					this.sockets.add(upstream);
					pump(client, upstream);
					pump(upstream, client);
				}
				catch (java.io.IOException ex) {
					// closed
				}
			}
		}

		private void pump(java.net.Socket from, java.net.Socket to) {
			Thread thread = new Thread(() -> {
				try {
					from.getInputStream().transferTo(to.getOutputStream());
				}
				catch (java.io.IOException ex) {
					// cut
				}
				closeQuietly(from);
				closeQuietly(to);
			}, "cuttable-proxy-pump");
			thread.setDaemon(true);
			thread.start();
		}

		/** Closes every connection and refuses new ones. */
		void cut() {
			this.open = false;
			this.sockets.forEach(CuttableProxy::closeQuietly);
			this.sockets.clear();
		}

		void restore() {
			this.open = true;
		}

		private static void closeQuietly(java.net.Socket socket) {
			try {
				socket.close();
			}
			catch (java.io.IOException ex) {
				// already closed
			}
		}

		@Override
		public void close() throws java.io.IOException {
			cut();
			this.server.close();
		}

	}

}

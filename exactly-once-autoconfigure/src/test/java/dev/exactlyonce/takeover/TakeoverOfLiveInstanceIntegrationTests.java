package dev.exactlyonce.takeover;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.test.TcpProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Attacks on the restart takeover: a process that is alive and still connected to NATS (its presence
 * subscription registered at the server) but paused, as in a long GC pause or a frozen container,
 * while another process with the same {@code exactlyonce.instance-id} starts (a fixed id on every
 * replica, or a default id two replicas share). The paused process is stopped with SIGSTOP, so its
 * TCP connection, and with it its subscription, stays open. And a live process whose connection
 * drops for seconds while the other starts.
 */
class TakeoverOfLiveInstanceIntegrationTests extends TakeoverTestsBase {

	/** How long the twin's connection is refused at least (the new process's start may take longer). */
	private static final Duration CONNECTION_DROP = Duration.ofSeconds(8);

	/** How long the cost is watched while the process has no task. */
	private static final Duration IDLE = Duration.ofSeconds(4);

	/**
	 * Control: with a request timeout (2 s) shorter than jnats' request clean-up interval (5 s), the
	 * paused, connected twin keeps its task.
	 */
	@Test
	void aConnectedTwinPausedLongerThanTheSilenceKeepsItsTaskWithAShortRequestTimeout() throws Exception {
		assertPausedTwinKeepsItsTask(TakeoverApp.REQUEST_TIMEOUT);
	}

	/**
	 * With {@code exactlyonce.nats.request-timeout} above jnats' request clean-up interval (5 s by default,
	 * 1 s here so that the test waits 3 s requests rather than 10 s ones), jnats cancels the presence
	 * request to a connected but silent incarnation as it times out; only the server's "no responders"
	 * counts as gone, so the twin keeps its task (found by a review: the cancellation was read as "no
	 * responders" and step 2 ran in both processes; that presence check, a request without its own
	 * timeout whose {@code CancellationException} counted as gone, fails this test).
	 */
	@Test
	void aConnectedTwinPausedLongerThanTheSilenceKeepsItsTaskWithALongRequestTimeout() throws Exception {
		assertPausedTwinKeepsItsTask(Duration.ofSeconds(3), "test.request-cleanup-interval=1s");
	}

	/**
	 * A live twin whose NATS connection drops for seconds (a NATS server restart, a network blip; jnats
	 * reconnects after {@code nats.reconnect-wait}) while a process with its id starts keeps its task:
	 * the silence a takeover waits for outlasts the drop and the reconnect. The new process keeps the
	 * NATS defaults (silence 15 s), so that its start, slow on a loaded machine, stays inside the drop
	 * and well inside the silence.
	 */
	@Test
	void aLiveTwinWhoseConnectionDropsForSecondsKeepsItsTask() throws Exception {
		try (TcpProxy proxy = new TcpProxy(this.nats.port())) {
			TakeoverWorker twin = new TakeoverWorker("nats://127.0.0.1:" + proxy.port(), "pod-0");
			this.workers.add(twin);
			publish("t-0");
			twin.awaitLine(TakeoverApp.STEP + " t-0 2");
			awaitListed("worker:t-0");
			proxy.cut();
			long cut = System.nanoTime();
			ConfigurableApplicationContext restarted = TakeoverApp.start(this.nats.url(), "pod-0",
					"exactlyonce.nats.reconnect-wait=2s", requestTimeout(Duration.ofSeconds(5)));
			this.contexts.add(restarted);
			TakeoverApp.Steps steps = restarted.getBean(TakeoverApp.Steps.class);
			// as long as a NATS server's restart takes, at least, and past the new process's start
			Thread.sleep(Math.max(0, CONNECTION_DROP.toMillis() - Duration.ofNanos(System.nanoTime() - cut).toMillis()));
			proxy.restore();
			System.out.println("TAKEOVER-CUT connection refused for " + Duration.ofNanos(System.nanoTime() - cut));
			await().during(Duration.ofSeconds(15))
				.atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(steps.runs("t-0", 2)).as("step 2 of t-0 run by the new process while the "
						+ "twin, reconnected, is still in it").isZero());
			assertThat(twin.isAlive()).isTrue();
		}
	}

	private void assertPausedTwinKeepsItsTask(Duration requestTimeout, String... properties) throws Exception {
		TakeoverWorker twin = new TakeoverWorker(this.nats.url(), "pod-0");
		this.workers.add(twin);
		publish("t-0");
		twin.awaitLine(TakeoverApp.STEP + " t-0 2");
		awaitListed("worker:t-0");
		twin.signal("STOP");
		// the twin's record goes unwritten for longer than the silence; its connection stays open
		awaitRecordSilent("worker:t-0", TakeoverApp.SILENCE.plusMillis(500));
		String[] restartedProperties = java.util.Arrays.copyOf(properties, properties.length + 1);
		restartedProperties[properties.length] = requestTimeout(requestTimeout);
		ConfigurableApplicationContext restarted = TakeoverApp.start(this.nats.url(), "pod-0", restartedProperties);
		this.contexts.add(restarted);
		TakeoverApp.Steps steps = restarted.getBean(TakeoverApp.Steps.class);
		assertNotRunBeforeDecided(steps, requestTimeout,
				"step 2 of t-0 run by the new process while the paused twin, still connected, is in it");
		assertThat(twin.isAlive()).isTrue();
	}

	/**
	 * Watches that the new process does not run step 2 until past its own silence and its last presence
	 * request (and 5 s more for a redelivery), counted from when its start returned (its takeover began
	 * before). The watch ends long before the paused twin's lease (40 s) and ack wait (60 s) run out.
	 */
	private static void assertNotRunBeforeDecided(TakeoverApp.Steps steps, Duration requestTimeout, String description) {
		Duration decided = RestartTakeover.silence(TakeoverApp.RECONNECT_WAIT, requestTimeout)
			.plus(requestTimeout)
			.plusSeconds(5);
		await().during(decided)
			.atMost(decided.plusSeconds(5))
			.untilAsserted(() -> assertThat(steps.runs("t-0", 2)).as(description).isZero());
	}

	private static String requestTimeout(Duration requestTimeout) {
		return "exactlyonce.nats.request-timeout=" + requestTimeout.toMillis() + "ms";
	}

	private void publish(String key) throws Exception {
		try (Connection connection = Nats.connect(this.nats.url())) {
			connection.jetStream()
				.publish(NatsMessage.builder().subject("tasks.t").data("\"" + key + "\"", StandardCharsets.UTF_8).build(),
						PublishOptions.builder().messageId(key).build());
		}
	}

	/**
	 * What the takeover costs a process: the puts to the instances
	 * bucket while idle and while running tasks, counted and sized by a subscriber to their subject (printed).
	 */
	@Test
	void costOfTheInstancesBucketIdleAndUnderLoad() throws Exception {
		ConfigurableApplicationContext app = TakeoverApp.start(this.nats.url(), "pod-0");
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
			// the idle window: a process without tasks rewrites its record every heartbeat (500 ms)
			Thread.sleep(IDLE.toMillis());
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
			System.out.printf("TAKEOVER-COST idle: %d puts in " + IDLE.toSeconds() + " s; load: %d tasks in %.1f s, %d puts (%.2f per task), "
					+ "%d bytes (%.0f per task), largest record %d bytes%n", idle, tasks, seconds, puts.get(),
					(double) puts.get() / tasks, bytes.get(), (double) bytes.get() / tasks, largest.get());
			assertThat(idle).isPositive();
		}
	}

}

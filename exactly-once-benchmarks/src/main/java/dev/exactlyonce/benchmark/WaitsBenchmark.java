package dev.exactlyonce.benchmark;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StreamState;
import io.nats.client.impl.NatsMessage;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

/**
 * Durable waits on the NATS KV store, one consumer with {@code concurrency} 4 and
 * {@code max-ack-pending} 16, in one application:
 * <ol>
 * <li>tasks that do not wait, 10,000 of them published at once: their throughput (after a warm-up of as many);</li>
 * <li>10,000 tasks suspended at {@code awaitSignal} (timeout one day): the heap they leave in this
 * JVM (used heap after a full GC, before and after), then the no-wait tasks again, as many, on the
 * same consumer: their throughput and its ratio to the first (two runs of each, the best of each
 * compared);</li>
 * <li>a signal sent to {@code benchmark.waits.signals} of them, one after the other: from the call
 * to {@link ExactlyOnceSignals#signal} to the handler running past its wait, p50/p99;</li>
 * <li>10,000 tasks that sleep {@code benchmark.waits.sleep-seconds} (5) each, published at once, the
 * deadline taken as a task's first arrival at the sleep plus the sleep (wall clock, which the
 * server on this machine shares; a little before the journaled one, so the figures err late): when
 * the timer fired (the server's timestamp of the task's resumed copy) and when the handler ran past
 * the sleep (after the copy's turn on the consumer), minus the deadline; and the timer consumer's
 * deliveries (looks) per ticket.</li>
 * </ol>
 * Not a test: run {@code scripts/benchmark.sh --waits}; {@code -Dbenchmark.waits.tasks=N} (10,000),
 * {@code -Dbenchmark.waits.signals=N} (1,000), {@code -Dbenchmark.waits.sleep-seconds=5}; the server is
 * {@code NATS_SERVER_BIN} (else /usr/sbin/nats-server).
 */
public final class WaitsBenchmark {

	private static final int TASKS = Integer.getInteger("benchmark.waits.tasks", 10_000);

	private static final int SIGNALS = Integer.getInteger("benchmark.waits.signals", 1000);

	private static final Duration SLEEP = Duration.ofSeconds(Integer.getInteger("benchmark.waits.sleep-seconds", 5));

	private static final String STREAM = "WAITSBENCH";

	private static final String CONSUMER = "waits";

	private static final String SUBJECT = "waitsbench.tasks";

	private static final Duration PATIENCE = Duration.ofMinutes(5);

	private final JetStream jetStream;

	private final JetStreamManagement management;

	private final WaitProbe probe = new WaitProbe(Math.max(TASKS, SIGNALS));

	private int published;

	private WaitsBenchmark(Connection connection) throws Exception {
		this.jetStream = connection.jetStream();
		this.management = connection.jetStreamManagement();
	}

	/**
	 * Runs the benchmark.
	 * @param args ignored
	 * @throws Exception when the server cannot start or a run fails
	 */
	public static void main(String[] args) throws Exception {
		try (NatsServerProcess nats = new NatsServerProcess().start(); Connection connection = Nats.connect(nats.url())) {
			System.out.printf(Locale.ROOT, "%n%d cores, Java %s, nats-server %s on loopback, NATS KV store, concurrency 4, "
					+ "max-ack-pending 16, sync acks; %d tasks per row%n%n", Runtime.getRuntime().availableProcessors(),
					System.getProperty("java.version"), connection.getServerInfo().getVersion(), TASKS);
			new WaitsBenchmark(connection).run(nats.url());
		}
	}

	private void run(String natsUrl) throws Exception {
		try (ConfigurableApplicationContext context = start(natsUrl)) {
			flow(TASKS);
			double[] alone = { flow(TASKS), flow(TASKS) };
			long heapBefore = usedHeap();
			publish("signal", TASKS, 0);
			await("tasks suspended", () -> this.probe.arrivedCount() >= TASKS && idle(CONSUMER) ? 1 : 0, 1);
			await("timer looked at every ticket", () -> idle("exactlyonce-wait-timer") ? 1 : 0, 1);
			Thread.sleep(2000);
			long heapWaiting = usedHeap();
			StreamState tickets = this.management.getStreamInfo("EXACTLYONCE_WAIT_TICKETS").getStreamState();
			ConsumerInfo timer = this.management.getConsumerInfo("EXACTLYONCE_WAIT_TICKETS", "exactlyonce-wait-timer");
			System.out.printf(Locale.ROOT, "Tickets of %d waiting tasks: %d on the stream, %d bytes each; %d held by the "
					+ "timer consumer (ack pending)%n%n", TASKS, tickets.getMsgCount(),
					tickets.getByteCount() / Math.max(1, tickets.getMsgCount()), timer.getNumAckPending());
			double[] withWaiters = { flow(TASKS), flow(TASKS) };
			double best = Math.max(alone[0], alone[1]);
			System.out.println("| tasks waiting | no-wait tasks/s (two runs) | best | ratio to no waiters (best) "
					+ "| heap per waiting task |");
			System.out.println("|---:|---:|---:|---:|---:|");
			System.out.printf(Locale.ROOT, "| 0 | %.0f, %.0f | %.0f | 1.00 | |%n", alone[0], alone[1], best);
			System.out.printf(Locale.ROOT, "| %d | %.0f, %.0f | %.0f | %.2f | %.0f bytes (%.1f MiB for all) |%n%n", TASKS,
					withWaiters[0], withWaiters[1], Math.max(withWaiters[0], withWaiters[1]),
					Math.max(withWaiters[0], withWaiters[1]) / best, (heapWaiting - heapBefore) / (double) TASKS,
					(heapWaiting - heapBefore) / 1024.0 / 1024.0);
			signal(context.getBean(ExactlyOnceSignals.class));
			sleepers();
		}
	}

	private ConfigurableApplicationContext start(String natsUrl) {
		List<String> properties = new ArrayList<>(List.of("exactlyonce.nats.servers=" + natsUrl,
				"exactlyonce.store.type=nats-kv", "exactlyonce.streams." + STREAM + ".subjects=" + SUBJECT,
				"exactlyonce.consumers." + CONSUMER + ".stream=" + STREAM,
				"exactlyonce.consumers." + CONSUMER + ".concurrency=4",
				"exactlyonce.consumers." + CONSUMER + ".max-ack-pending=16",
				"exactlyonce.consumers." + CONSUMER + ".ack-wait=30s", "exactlyonce.listener.ack-mode=sync",
				"exactlyonce.dead-letter.stream=", "benchmark.consumer=" + CONSUMER, "spring.main.banner-mode=off",
				"logging.level.root=WARN", "spring.cloud.gcp.core.enabled=false", "spring.cloud.gcp.firestore.enabled=false",
				"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"));
		return new SpringApplicationBuilder(WaitsBenchmarkApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.initializers((ctx) -> ctx.getBeanFactory().registerSingleton("waitProbe", this.probe))
			.run();
	}

	/** Publishes {@code count} tasks that do not wait and answers their throughput, publish to last done. */
	private double flow(int count) throws Exception {
		int target = this.probe.doneCount() + count;
		long started = System.nanoTime();
		publish("none", count, 0);
		await("no-wait tasks", this.probe::doneCount, target);
		return count / ((System.nanoTime() - started) / 1e9);
	}

	private void signal(ExactlyOnceSignals signals) throws Exception {
		int count = Math.min(SIGNALS, TASKS);
		LatencyRecorder calls = new LatencyRecorder(count);
		int resumed = 0;
		long started = System.nanoTime();
		for (int i = 0; i < count; i++) {
			String taskId = "signal-" + i;
			this.probe.sending(taskId);
			long sent = System.nanoTime();
			SignalOutcome outcome = signals.signal(CONSUMER, taskId, WaitsBenchmarkApplication.WaitingListener.SIGNAL, "ok",
					"s-" + i);
			calls.record(sent);
			resumed += (outcome == SignalOutcome.RESUMED) ? 1 : 0;
		}
		await("signalled tasks", this.probe::signalledCount, count);
		double seconds = (System.nanoTime() - started) / 1e9;
		LatencyRecorder reentry = this.probe.signalToReentry();
		System.out.println("| signals (one sender, in turn) | RESUMED | signal() p50 ms | signal() p99 ms "
				+ "| signal -> handler past the wait p50 ms | p99 ms | signals/s |");
		System.out.println("|---:|---:|---:|---:|---:|---:|---:|");
		System.out.printf(Locale.ROOT, "| %d | %d | %.1f | %.1f | %.1f | %.1f | %.0f |%n%n", count, resumed,
				calls.percentileMillis(50), calls.percentileMillis(99), reentry.percentileMillis(50),
				reentry.percentileMillis(99), count / seconds);
	}

	private void sleepers() throws Exception {
		ConsumerInfo timerBefore = this.management.getConsumerInfo("EXACTLYONCE_WAIT_TICKETS", "exactlyonce-wait-timer");
		long started = System.nanoTime();
		publish("sleep", TASKS, SLEEP.toMillis());
		await("sleeping tasks suspended", this.probe::reachedCount, TASKS);
		double suspendedIn = (System.nanoTime() - started) / 1e9;
		await("sleeping tasks woken", this.probe::wokeCount, TASKS);
		double seconds = (System.nanoTime() - started) / 1e9;
		ConsumerInfo timer = this.management.getConsumerInfo("EXACTLYONCE_WAIT_TICKETS", "exactlyonce-wait-timer");
		long looks = timer.getDelivered().getConsumerSequence() - timerBefore.getDelivered().getConsumerSequence();
		LatencyRecorder fired = new LatencyRecorder(TASKS);
		for (Map.Entry<Long, Long> woken : this.probe.deadlines().entrySet()) {
			MessageInfo copy = this.management.getMessage(STREAM, woken.getKey());
			fired.recordNanos(WaitProbe.epochNanos(copy.getTime().toInstant()) - woken.getValue());
		}
		LatencyRecorder late = this.probe.lateness();
		System.out.println("| timers | sleep | all arrived at the sleep in s | fired - deadline p50 ms | p99 ms "
				+ "| handler past the sleep - deadline p50 ms | p99 ms | max ms | last woke after s | timer looks per ticket |");
		System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		System.out.printf(Locale.ROOT, "| %d | %s | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.2f |%n%n", TASKS,
				SLEEP.toSeconds() + " s", suspendedIn, fired.percentileMillis(50), fired.percentileMillis(99),
				late.percentileMillis(50), late.percentileMillis(99), late.percentileMillis(100), seconds,
				looks / (double) TASKS);
	}

	private void publish(String mode, int count, long sleepMillis) {
		List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String taskId = mode + "-" + (mode.equals("none") ? this.published++ : i);
			byte[] data = String.format(Locale.ROOT, "{\"taskId\":\"%s\",\"mode\":\"%s\",\"sleepMillis\":%d}", taskId,
					mode, sleepMillis).getBytes(StandardCharsets.UTF_8);
			acks.add(this.jetStream.publishAsync(NatsMessage.builder().subject(SUBJECT).data(data).build(),
					PublishOptions.builder().messageId(taskId).build()));
		}
		acks.forEach(CompletableFuture::join);
	}

	/** Whether a consumer has nothing left to deliver and nothing unacknowledged. */
	private boolean idle(String consumer) {
		try {
			String stream = consumer.equals(CONSUMER) ? STREAM : "EXACTLYONCE_WAIT_TICKETS";
			ConsumerInfo info = this.management.getConsumerInfo(stream, consumer);
			return info.getNumPending() == 0 && (consumer.equals(CONSUMER) ? info.getNumAckPending() == 0 : true);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void await(String what, IntSupplier count, int target) throws InterruptedException {
		Counts.await(what, count, target, PATIENCE);
	}

	private static long usedHeap() throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(200);
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

}

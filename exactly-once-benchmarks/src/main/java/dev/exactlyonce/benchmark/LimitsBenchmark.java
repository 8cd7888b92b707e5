package dev.exactlyonce.benchmark;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntSupplier;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.NatsMessage;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.test.NatsServerProcess;

/**
 * Limits on the NATS KV store, in one application (see docs/limits.md):
 * <ol>
 * <li>the cost of a limit: a task of one step, its step under the concurrency limit {@code wide} (1,000
 * at once, one key, never full) against the same step under none, {@code benchmark.limits.steps} tasks
 * of each (2,000), consumer concurrency 4, after a warm-up: the step's time from the call to its
 * return, p50/p99, tasks per second and the CPU per task of this JVM and of nats-server (two runs of
 * each, interleaved);</li>
 * <li>throughput at a concurrency limit: {@code benchmark.limits.keyed-tasks} tasks (400) of one key
 * under {@code four} (concurrency 4), each working {@code benchmark.limits.work-ms} (50), published at
 * once to a consumer of 64 workers: tasks per second against the ideal (4 / work), over the run and
 * over its second half (once every task arrived), how long a slot stood idle per task (4 x the run's
 * time less the work, over the tasks: the hand-over from one holder to the next), and the most tasks
 * seen running at once;</li>
 * <li>throughput at a rate limit: {@code benchmark.limits.rated-tasks} tasks (1,800) under
 * {@code rated} (600 per minute, one key), published at once to a consumer of 16 workers: the starts
 * in the first minute, the most in any 60 s window, and the time to the last start.</li>
 * </ol>
 * Not a test: run {@code scripts/benchmark.sh --limits}; the server is {@code NATS_SERVER_BIN} (else
 * /usr/sbin/nats-server).
 */
public final class LimitsBenchmark {

	private static final int STEP_TASKS = Integer.getInteger("benchmark.limits.steps", 2000);

	private static final int KEYED_TASKS = Integer.getInteger("benchmark.limits.keyed-tasks", 400);

	private static final int RATED_TASKS = Integer.getInteger("benchmark.limits.rated-tasks", 1800);

	private static final long WORK_MILLIS = Long.getLong("benchmark.limits.work-ms", 50);

	private static final int CONCURRENCY = 4;

	private static final int RATE = 600;

	private static final String STREAM = "LIMITSBENCH";

	private static final Duration PATIENCE = Duration.ofMinutes(10);

	private final JetStream jetStream;

	private final LimitProbe probe = new LimitProbe();

	private int published;

	private LimitsBenchmark(Connection connection) throws Exception {
		this.jetStream = connection.jetStream();
	}

	/**
	 * Runs the benchmark.
	 * @param args ignored
	 * @throws Exception when the server cannot start or a run fails
	 */
	public static void main(String[] args) throws Exception {
		try (NatsServerProcess nats = new NatsServerProcess().start(); Connection connection = Nats.connect(nats.url())) {
			ServerCpu.measure(List.of(nats));
			System.out.printf(Locale.ROOT, "%n%d cores, Java %s, nats-server %s on loopback, NATS KV store, sync acks%n%n",
					Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
					connection.getServerInfo().getVersion());
			new LimitsBenchmark(connection).run(nats.url());
		}
	}

	private void run(String natsUrl) throws Exception {
		try (ConfigurableApplicationContext context = start(natsUrl)) {
			steps(false, STEP_TASKS / 4);
			steps(true, STEP_TASKS / 4);
			System.out.println("| step (consumer concurrency 4) | run | tasks | step p50 ms | step p99 ms | tasks/s "
					+ "| JVM CPU µs per task | nats-server CPU µs per task |");
			System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
			for (int run = 1; run <= 2; run++) {
				for (boolean limited : new boolean[] { false, true }) {
					Row row = steps(limited, STEP_TASKS);
					System.out.printf(Locale.ROOT, "| %s | %d | %d | %.2f | %.2f | %.0f | %.0f | %.0f |%n",
							limited ? "under a concurrency limit (1,000, one key)" : "no limit", run, STEP_TASKS,
							row.p50(), row.p99(), row.perSecond(), row.jvmMicros(), row.serverMicros());
				}
			}
			System.out.println();
			keyed();
			rated();
		}
	}

	private Row steps(boolean limited, int count) throws Exception {
		this.probe.recordSteps(count);
		int target = this.probe.steppedCount() + count;
		long cpu = ProcessCpu.nanos();
		long serverCpu = ServerCpu.nanos();
		long started = System.nanoTime();
		publish("limitsbench.steps", count, (id) -> String.format(Locale.ROOT,
				"{\"taskId\":\"%s\",\"limited\":%b,\"service\":\"\"}", id, limited));
		await("steps", this.probe::steppedCount, target);
		double seconds = (System.nanoTime() - started) / 1e9;
		LatencyRecorder times = this.probe.steps(limited);
		return new Row(times.percentileMillis(50), times.percentileMillis(99), count / seconds,
				ProcessCpu.microsPerMessageSince(cpu, count), ServerCpu.microsPerMessageSince(serverCpu, count));
	}

	private void keyed() throws Exception {
		long started = System.nanoTime();
		publish("limitsbench.keyed", KEYED_TASKS,
				(id) -> String.format(Locale.ROOT, "{\"taskId\":\"%s\",\"limited\":false,\"service\":\"svc\"}", id));
		await("keyed tasks", this.probe::keyedDoneCount, KEYED_TASKS);
		double seconds = (System.nanoTime() - started) / 1e9;
		double ideal = CONCURRENCY * 1000.0 / WORK_MILLIS;
		List<Long> ends = this.probe.keyedEnds();
		int half = ends.size() / 2;
		double secondHalf = (ends.size() - half) / ((ends.get(ends.size() - 1) - ends.get(half - 1)) / 1e9);
		double handOffMillis = (CONCURRENCY * seconds * 1000 - KEYED_TASKS * WORK_MILLIS) / KEYED_TASKS;
		System.out.println("| concurrency limit | workers | tasks, one key | work per task | tasks/s | tasks/s, 2nd half "
				+ "| ideal tasks/s | of ideal | slot idle per task ms | most running at once |");
		System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		System.out.printf(Locale.ROOT, "| %d | 64 | %d | %d ms | %.1f | %.1f | %.0f | %.0f %% | %.0f | %d |%n%n",
				CONCURRENCY, KEYED_TASKS, WORK_MILLIS, KEYED_TASKS / seconds, secondHalf, ideal,
				100 * KEYED_TASKS / seconds / ideal, handOffMillis, this.probe.mostRunning());
	}

	private void rated() throws Exception {
		long started = System.nanoTime();
		publish("limitsbench.rated", RATED_TASKS,
				(id) -> String.format(Locale.ROOT, "{\"taskId\":\"%s\",\"limited\":false,\"service\":\"\"}", id));
		await("rated tasks", this.probe::ratedCount, RATED_TASKS);
		List<Long> starts = this.probe.ratedStarts();
		long first = starts.get(0);
		long minute = Duration.ofMinutes(1).toNanos();
		int firstMinute = (int) starts.stream().filter((start) -> start - first < minute).count();
		int most = 0;
		for (int i = 0, j = 0; j < starts.size(); j++) {
			while (starts.get(j) - starts.get(i) >= minute) {
				i++;
			}
			most = Math.max(most, j - i + 1);
		}
		double lastAfter = (starts.get(starts.size() - 1) - started) / 1e9;
		double ideal = (Math.ceil(RATED_TASKS / (double) RATE) - 1) * 60;
		System.out.println("| rate limit | workers | tasks, one key | started in the first minute | most in any 60 s "
				+ "| last started after s | ideal s |");
		System.out.println("|---:|---:|---:|---:|---:|---:|---:|");
		System.out.printf(Locale.ROOT, "| %d per minute | 16 | %d | %d | %d | %.1f | %.0f |%n%n", RATE, RATED_TASKS,
				firstMinute, most, lastAfter, ideal);
	}

	private ConfigurableApplicationContext start(String natsUrl) {
		List<String> properties = new ArrayList<>(List.of("exactlyonce.nats.servers=" + natsUrl,
				"exactlyonce.store.type=nats-kv", "exactlyonce.streams." + STREAM + ".subjects=limitsbench.>",
				"exactlyonce.limits.wide.concurrency=1000", "exactlyonce.limits.four.concurrency=" + CONCURRENCY,
				"exactlyonce.limits.rated.rate=" + RATE, "exactlyonce.limits.rated.per=1m",
				"benchmark.limits.consumers.steps=steps", "benchmark.limits.consumers.keyed=keyed",
				"benchmark.limits.consumers.rated=rated",
				"exactlyonce.listener.ack-mode=sync", "exactlyonce.dead-letter.stream=", "spring.main.banner-mode=off",
				"logging.level.root=WARN", "spring.cloud.gcp.core.enabled=false", "spring.cloud.gcp.firestore.enabled=false",
				"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"));
		consumer(properties, "steps", "limitsbench.steps", 4, 16);
		consumer(properties, "keyed", "limitsbench.keyed", 64, 256);
		consumer(properties, "rated", "limitsbench.rated", 16, 64);
		return new SpringApplicationBuilder(LimitsBenchmarkApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.initializers((ctx) -> ctx.getBeanFactory().registerSingleton("limitProbe", this.probe))
			.run();
	}

	private static void consumer(List<String> properties, String name, String subject, int concurrency,
			int maxAckPending) {
		String prefix = "exactlyonce.consumers." + name + ".";
		properties.addAll(List.of(prefix + "stream=" + STREAM, prefix + "filter-subject=" + subject,
				prefix + "concurrency=" + concurrency, prefix + "max-ack-pending=" + maxAckPending,
				prefix + "ack-wait=30s"));
	}

	private void publish(String subject, int count, Function<String, String> payload) {
		List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String taskId = "t-" + this.published++;
			acks.add(this.jetStream.publishAsync(NatsMessage.builder()
				.subject(subject)
				.data(payload.apply(taskId).getBytes(StandardCharsets.UTF_8))
				.build(), PublishOptions.builder().messageId(taskId).build()));
		}
		acks.forEach(CompletableFuture::join);
	}

	private static void await(String what, IntSupplier count, int target) throws InterruptedException {
		Counts.await(what, count, target, PATIENCE);
	}

	/** One run of steps. */
	private record Row(double p50, double p99, double perSecond, double jvmMicros, double serverMicros) {
	}

}

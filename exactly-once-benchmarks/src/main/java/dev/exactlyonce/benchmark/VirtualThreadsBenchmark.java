package dev.exactlyonce.benchmark;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;

import dev.exactlyonce.benchmark.Scenario.ConsumerKind;
import dev.exactlyonce.test.NatsServerProcess;

/**
 * Handlers that wait (50 ms, as a call to a model API does) at concurrency 1,000, on platform
 * threads and on virtual threads ({@code spring.threads.virtual.enabled}, Java 21 or later), on
 * the memory and NATS KV stores: throughput, latency, and this JVM's platform threads, heap and
 * resident memory at their peak in the run. A warm-up run of a fifth of the messages goes first.
 * Not a test: run {@code scripts/benchmark.sh --virtual-threads}, which runs each kind of thread
 * in a JVM of its own ({@code -Dbenchmark.thread-kinds=virtual}), so that one kind's memory does
 * not carry into the other's figures; the JVM is Maven's ({@code exec:java}), the same for both.
 * {@code -Dbenchmark.messages=N} (10,000), {@code -Dbenchmark.concurrency=N} (1,000),
 * {@code -Dbenchmark.handlers=ms} (50), {@code -Dbenchmark.stores=memory,nats-kv}.
 */
public final class VirtualThreadsBenchmark {

	private static final int MESSAGES = Integer.getInteger("benchmark.messages", 10_000);

	private static final int CONCURRENCY = Integer.getInteger("benchmark.concurrency", 1000);

	private static final int WORK_MILLIS = Integer.getInteger("benchmark.handlers", 50);

	private static final List<String> STORES = List
		.of(System.getProperty("benchmark.stores", "memory,nats-kv").split(","));

	private static final List<String> KINDS = List
		.of(System.getProperty("benchmark.thread-kinds", "platform,virtual").split(","));

	private VirtualThreadsBenchmark() {
	}

	/**
	 * Runs the benchmark.
	 * @param args ignored
	 * @throws Exception when the server cannot start or a run fails
	 */
	public static void main(String[] args) throws Exception {
		if (KINDS.contains("virtual") && Runtime.version().feature() < 21) {
			throw new IllegalStateException("Virtual threads need Java 21 or later; this is Java "
					+ Runtime.version().feature() + ", where spring.threads.virtual.enabled is ignored");
		}
		try (NatsServerProcess nats = new NatsServerProcess().start(); Connection connection = Nats.connect(nats.url())) {
			if (!"false".equals(System.getProperty("benchmark.header"))) {
				System.out.printf(Locale.ROOT, "%n%d cores, Java %s, nats-server on loopback; handler %d ms, concurrency "
						+ "%d, %d messages, sync acks; one run each after a warm-up%n%n",
						Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), WORK_MILLIS,
						CONCURRENCY, MESSAGES);
				System.out.println("| store | threads | msgs/s | latency p50 ms | latency p99 ms | platform threads "
						+ "(peak) | heap used MiB (peak) | RSS MiB (peak) | redelivered |");
				System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|");
			}
			int run = 0;
			for (String store : STORES) {
				for (String kind : KINDS) {
					measure(nats, connection, store, kind, Math.max(10, MESSAGES / 5), ++run);
					measure(nats, connection, store, kind, MESSAGES, ++run).print(store, kind);
				}
			}
		}
	}

	private static Row measure(NatsServerProcess nats, Connection connection, String store, String kind, int messages,
			int run) throws Exception {
		String stream = "VT" + run;
		String consumer = "vt" + run;
		Scenario scenario = new Scenario(new ConsumerKind(store + ", " + kind + " threads", store, true, false),
				CONCURRENCY, WORK_MILLIS, messages);
		Map<String, String> properties = Map.of("exactlyonce.store.type", store, "spring.threads.virtual.enabled",
				Boolean.toString(kind.equals("virtual")), "exactlyonce.consumers." + consumer + ".max-ack-pending",
				Integer.toString(2 * CONCURRENCY));
		JetStreamManagement management = connection.jetStreamManagement();
		try {
			RunResult result;
			ResourcePeaks peaks = new ResourcePeaks();
			try (peaks) {
				result = ExactlyOnceRun.run(nats.url(), properties, stream, consumer, "vt." + run, scenario,
						connection.jetStream());
			}
			return new Row(result, peaks, management.getConsumerInfo(stream, consumer).getRedelivered());
		}
		finally {
			management.deleteStream(stream);
		}
	}

	/** One measured run. */
	private record Row(RunResult result, ResourcePeaks peaks, long redelivered) {

		void print(String store, String kind) {
			System.out.printf(Locale.ROOT, "| %s | %s | %.0f | %.1f | %.1f | %d | %.0f | %.0f | %d |%n", store, kind,
					this.result.messagesPerSecond(), this.result.latency().percentileMillis(50),
					this.result.latency().percentileMillis(99), this.peaks.platformThreads(), this.peaks.heapMib(),
					this.peaks.rssMib(), this.redelivered);
		}

	}

}

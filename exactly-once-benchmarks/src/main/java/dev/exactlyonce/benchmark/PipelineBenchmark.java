package dev.exactlyonce.benchmark;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StorageType;

import dev.exactlyonce.autoconfigure.ConsumerProperties;
import dev.exactlyonce.autoconfigure.StreamProperties;
import dev.exactlyonce.benchmark.Scenario.ConsumerKind;
import dev.exactlyonce.provision.JetStreamProvisioner;
import dev.exactlyonce.provision.ProvisioningMode;
import dev.exactlyonce.test.FirestoreEmulatorProcess;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.PostgresServerProcess;
import dev.exactlyonce.test.RedisServerProcess;

/**
 * Raw JetStream versus the exactly-once listener on each store, in one run on this machine: the
 * same stream and consumer settings, concurrency 1, 8 and 64, a no-op handler and a 50 ms handler.
 * Repetitions are interleaved (every scenario once, then again) and each figure is the median of
 * the repetitions; a warm-up round is run first and thrown away. Prints Markdown tables. Not a
 * test: run {@code scripts/benchmark.sh} ({@code -Dbenchmark.repetitions=N},
 * {@code -Dbenchmark.quick=true} for a smoke run, {@code -Dbenchmark.stores=nats-kv,jdbc} for some stores,
 * {@code -Dbenchmark.handlers=0} for some handler costs in ms, {@code -Dbenchmark.concurrency=1,8} for
 * some concurrencies, {@code -Dbenchmark.messages=N} for the messages of a no-op run,
 * {@code -Dbenchmark.threads=true} for CPU by thread group, {@code -Dbenchmark.rows=<label>;<label>} for
 * some rows by their consumer label (the raw rows and the floor are always run), {@code -Dbenchmark.jfr=<dir>} for a
 * flight recording of each measured run, see {@link FlightRecording}). Then each exactly-once no-op row at
 * concurrency 8 and 64 runs once more under load: published at 80 % of its rate while it runs
 * ({@code -Dbenchmark.load=0.8}; 0 skips it), for its publish-to-ack latency. CPU µs per
 * message is this JVM's CPU time over a run divided by its messages: the servers run in other
 * processes and are not in it.
 */
public final class PipelineBenchmark {

	private static final List<ConsumerKind> KINDS = List.of(new ConsumerKind("raw ack()", null, false, false),
			new ConsumerKind("raw ackSync", null, true, false),
			new ConsumerKind("raw claim+complete+ack() (floor: NATS KV create, update on its revision, ack)",
					ConsumerKind.FLOOR, false, false),
			new ConsumerKind("exactly-once memory", "memory", true, false),
			new ConsumerKind("exactly-once memory, ack-mode async", "memory", false, false),
			new ConsumerKind("exactly-once memory, pipelined, ack-mode async", "memory", false, true),
			new ConsumerKind("exactly-once nats-kv", "nats-kv", true, false),
			new ConsumerKind("exactly-once nats-kv, ack-mode async", "nats-kv", false, false),
			new ConsumerKind("exactly-once nats-kv, pipelined", "nats-kv", true, true),
			new ConsumerKind("exactly-once nats-kv, pipelined, ack-mode async", "nats-kv", false, true),
			new ConsumerKind("exactly-once redis", "redis", true, false),
			new ConsumerKind("exactly-once redis, pipelined, ack-mode async", "redis", false, true),
			new ConsumerKind("exactly-once firestore (emulator)", "firestore", true, false),
			new ConsumerKind("exactly-once jdbc (PostgreSQL)", "jdbc", true, false));

	/** The stores measured ({@code -Dbenchmark.stores=nats-kv,jdbc}); raw JetStream is always measured. */
	private static final Set<String> STORES = Set
		.of(System.getProperty("benchmark.stores", "memory,nats-kv,redis,firestore,jdbc").split(","));

	/** The concurrencies measured ({@code -Dbenchmark.concurrency=1,8}). */
	private static final String[] CONCURRENCIES = System.getProperty("benchmark.concurrency", "1,8,64").split(",");

	/** The share of the closed-loop rate offered in the runs under load ({@code -Dbenchmark.load=0} skips them). */
	private static final double LOAD = Double.parseDouble(System.getProperty("benchmark.load", "0.8"));

	private static final Duration LOAD_DURATION = Duration.ofSeconds(10);

	/** The handler costs measured, in ms ({@code -Dbenchmark.handlers=0}). */
	private static final String[] HANDLERS = System.getProperty("benchmark.handlers", "0,50").split(",");

	/**
	 * The rows measured, by consumer label ({@code -Dbenchmark.rows=exactly-once nats-kv;exactly-once nats-kv,
	 * ack-mode async}); empty for all. The hand-written rows (raw and the floor) are always measured: the others
	 * are read against them.
	 */
	private static final Set<String> ROWS = Set.of(System.getProperty("benchmark.rows", "").split(";"));

	private int runNumber;

	private final Connection connection;

	private final NatsServerProcess nats;

	private final Map<String, Map<String, String>> storeProperties;

	private PipelineBenchmark(NatsServerProcess nats, Connection connection,
			Map<String, Map<String, String>> storeProperties) {
		this.nats = nats;
		this.connection = connection;
		this.storeProperties = storeProperties;
	}

	/**
	 * Runs the benchmark.
	 * @param args ignored
	 * @throws Exception when a server cannot start or a run fails
	 */
	public static void main(String[] args) throws Exception {
		int repetitions = Integer.getInteger("benchmark.repetitions", 3);
		boolean quick = Boolean.getBoolean("benchmark.quick");
		try (NatsServerProcess nats = new NatsServerProcess().start();
				RedisServerProcess redis = new RedisServerProcess().start();
				FirestoreEmulatorProcess firestore = new FirestoreEmulatorProcess().start();
				PostgresServerProcess postgres = new PostgresServerProcess(true).start();
				Connection connection = Nats.connect(nats.url())) {
			ServerCpu.measure(List.of(nats, redis, firestore, postgres));
			Map<String, Map<String, String>> stores = new LinkedHashMap<>();
			stores.put("memory", Map.of("exactlyonce.store.type", "memory"));
			stores.put("nats-kv", Map.of("exactlyonce.store.type", "nats-kv"));
			stores.put("redis", Map.of("exactlyonce.store.type", "redis", "spring.data.redis.host", redis.host(),
					"spring.data.redis.port", Integer.toString(redis.port()), "spring.data.redis.timeout", "2s"));
			stores.put("firestore", Map.of("exactlyonce.store.type", "firestore", "spring.cloud.gcp.core.enabled", "true",
					"spring.cloud.gcp.firestore.enabled", "true", "spring.cloud.gcp.firestore.project-id", "benchmark",
					"spring.cloud.gcp.firestore.emulator.enabled", "true", "spring.cloud.gcp.firestore.host-port",
					firestore.hostPort()));
			stores.put("jdbc", Map.of("exactlyonce.store.type", "jdbc", "spring.datasource.url", postgres.jdbcUrl(),
					"spring.datasource.username", postgres.user(), "exactlyonce.store.jdbc.initialize-schema", "always"));
			new PipelineBenchmark(nats, connection, stores).run(scenarios(quick), repetitions);
		}
	}

	private static List<Scenario> scenarios(boolean quick) {
		List<Scenario> scenarios = new ArrayList<>();
		int noOpMessages = Integer.getInteger("benchmark.messages", quick ? 100 : 1000);
		for (String handler : HANDLERS) {
			int work = Integer.parseInt(handler.trim());
			for (String concurrencyValue : CONCURRENCIES) {
				int concurrency = Integer.parseInt(concurrencyValue.trim());
				int messages = (work == 0) ? noOpMessages
						: ((concurrency == 1) ? (quick ? 10 : 60) : concurrency * (quick ? 5 : 50));
				for (ConsumerKind kind : KINDS) {
					boolean selected = ROWS.equals(Set.of("")) || kind.handWritten() || ROWS.contains(kind.label());
					if (selected && (kind.handWritten() || STORES.contains(kind.store()))) {
						scenarios.add(new Scenario(kind, concurrency, work, messages));
					}
				}
			}
		}
		return scenarios;
	}

	private void run(List<Scenario> scenarios, int repetitions) throws Exception {
		Instant started = Instant.now();
		for (Scenario scenario : scenarios) {
			measure(new Scenario(scenario.consumer(), scenario.concurrency(), scenario.workMillis(),
					Math.max(10, scenario.messages() / 5)));
		}
		FlightRecording.measuring();
		Map<Scenario, List<RunResult>> results = new LinkedHashMap<>();
		for (int repetition = 0; repetition < repetitions; repetition++) {
			for (Scenario scenario : scenarios) {
				results.computeIfAbsent(scenario, (s) -> new ArrayList<>()).add(measure(scenario));
			}
		}
		print(results, repetitions, Duration.between(started, Instant.now()));
		if (LOAD > 0) {
			underLoad(results);
		}
	}

	/**
	 * Runs each exactly-once no-op scenario at concurrency above 1 again with messages published
	 * at {@link #LOAD} of the rate it reached, while it runs, and prints its latency then.
	 */
	private void underLoad(Map<Scenario, List<RunResult>> results) throws Exception {
		System.out.printf(Locale.ROOT, "%nUnder load: messages published at %.0f %% of the closed-loop rate while the "
				+ "listener runs, for %d s; one run each%n%n", LOAD * 100, LOAD_DURATION.toSeconds());
		System.out.println("| scenario | closed-loop msgs/s | offered msgs/s | achieved msgs/s | publish to ack p50 ms "
				+ "| publish to ack p99 ms | receipt to ack p99 ms | redelivered |");
		System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
		for (Map.Entry<Scenario, List<RunResult>> entry : results.entrySet()) {
			Scenario closedLoop = entry.getKey();
			if (closedLoop.consumer().handWritten() || closedLoop.workMillis() != 0 || closedLoop.concurrency() == 1) {
				continue;
			}
			double rate = median(entry.getValue(), RunResult::messagesPerSecond);
			RunResult loaded = measure(closedLoop.underLoad(LOAD * rate, LOAD_DURATION));
			LatencyRecorder sincePublished = loaded.segments().get("publish to ack");
			System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %d |%n", closedLoop.label(),
					rate, LOAD * rate, loaded.messagesPerSecond(), sincePublished.percentileMillis(50),
					sincePublished.percentileMillis(99), loaded.latency().percentileMillis(99), loaded.redelivered());
		}
	}

	private RunResult measure(Scenario scenario) throws Exception {
		int n = ++this.runNumber;
		String stream = "BENCH" + n;
		String consumer = "bench" + n;
		String subject = "bench." + n;
		JetStreamManagement management = this.connection.jetStreamManagement();
		try {
			RunResult result;
			if (scenario.consumer().handWritten()) {
				provision(management, stream, consumer, subject, scenario);
				ExactlyOnceRun.publish(this.connection.jetStream(), subject, scenario.messages());
				result = RawConsumerRun.run(this.connection, stream, consumer, scenario,
						scenario.consumer().floor() ? floorBucket(stream) : null);
			}
			else {
				result = ExactlyOnceRun.run(this.nats.url(), this.storeProperties.get(scenario.consumer().store()),
						stream, consumer, subject, scenario, this.connection.jetStream());
			}
			return result.withRedelivered(management.getConsumerInfo(stream, consumer).getRedelivered());
		}
		finally {
			management.deleteStream(stream);
			if (scenario.consumer().floor()) {
				this.connection.keyValueManagement().delete(stream);
			}
		}
	}

	/** The floor's bucket: one revision per key, file storage, as the NATS KV store's. */
	private KeyValue floorBucket(String name) throws IOException, JetStreamApiException {
		this.connection.keyValueManagement()
			.create(KeyValueConfiguration.builder().name(name).maxHistoryPerKey(1).storageType(StorageType.File).build());
		return this.connection.keyValue(name);
	}

	/** The same stream and consumer the starter provisions for an exactly-once run. */
	private static void provision(JetStreamManagement management, String stream, String consumer, String subject,
			Scenario scenario) {
		StreamProperties streamProperties = new StreamProperties();
		streamProperties.setSubjects(List.of(subject));
		ConsumerProperties consumerProperties = new ConsumerProperties();
		consumerProperties.setStream(stream);
		consumerProperties.setAckWait(Duration.ofSeconds(30));
		consumerProperties.setConcurrency(scenario.concurrency());
		JetStreamProvisioner provisioner = new JetStreamProvisioner(management, ProvisioningMode.CREATE_OR_UPDATE);
		provisioner.provisionStream(streamProperties.toDeclaration(stream));
		provisioner.provisionConsumer(consumerProperties.toDeclaration(consumer));
	}

	private static void print(Map<Scenario, List<RunResult>> results, int repetitions, Duration took) {
		System.out.printf(Locale.ROOT, "%n%d cores, %s, Java %s, nats-server on loopback; median of %d interleaved "
				+ "repetitions after a warm-up round (run took %d s)%n%n", Runtime.getRuntime().availableProcessors(),
				System.getProperty("os.name") + " " + System.getProperty("os.arch"),
				System.getProperty("java.version"), repetitions, took.toSeconds());
		System.out.println("| scenario | msgs/s | latency p50 ms | latency p99 ms | added p50 ms vs raw ackSync | "
				+ "throughput vs raw ack() | throughput vs floor | CPU µs/msg (this JVM) | CPU µs/msg (servers) | "
				+ "redelivered |");
		System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (Map.Entry<Scenario, List<RunResult>> entry : results.entrySet()) {
			Scenario scenario = entry.getKey();
			List<RunResult> runs = entry.getValue();
			List<RunResult> rawSync = results.get(baseline(results, scenario, true));
			List<RunResult> rawAck = results.get(baseline(results, scenario, false));
			Scenario floorScenario = floor(results, scenario);
			double floorRate = (floorScenario != null) ? median(results.get(floorScenario), RunResult::messagesPerSecond)
					: Double.NaN;
			double p50 = median(runs, (r) -> r.latency().percentileMillis(50));
			System.out.printf(Locale.ROOT, "| %s | %.0f | %.2f | %.2f | %+.2f | %.2f | %.2f | %.0f | %.0f | %d |%n",
					scenario.label(),
					median(runs, RunResult::messagesPerSecond), p50, median(runs, (r) -> r.latency().percentileMillis(99)),
					p50 - median(rawSync, (r) -> r.latency().percentileMillis(50)),
					median(runs, RunResult::messagesPerSecond) / median(rawAck, RunResult::messagesPerSecond),
					median(runs, RunResult::messagesPerSecond) / floorRate,
					median(runs, RunResult::cpuMicrosPerMessage), median(runs, RunResult::serverCpuMicrosPerMessage),
					runs.stream().mapToLong(RunResult::redelivered).sum());
		}
		System.out.println();
		System.out.println("Where the time of one exactly-once message goes (concurrency 1, no-op handler), p50 ms:");
		System.out.println();
		System.out.println("| store | claim | handler | completion record | ack | receipt to ack |");
		System.out.println("|---|---:|---:|---:|---:|---:|");
		results.forEach((scenario, runs) -> {
			if (!scenario.consumer().handWritten() && scenario.concurrency() == 1 && scenario.workMillis() == 0) {
				System.out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f |%n", scenario.consumer().label(),
						segment(runs, "claim"), segment(runs, "handler"), segment(runs, "complete"), segment(runs, "ack"),
						median(runs, (r) -> r.latency().percentileMillis(50)));
			}
		});
	}

	private static Scenario baseline(Map<Scenario, List<RunResult>> results, Scenario scenario, boolean syncAck) {
		return results.keySet()
			.stream()
			.filter((s) -> s.consumer().raw() && s.consumer().syncAck() == syncAck
					&& s.concurrency() == scenario.concurrency() && s.workMillis() == scenario.workMillis())
			.findFirst()
			.orElseThrow();
	}

	private static Scenario floor(Map<Scenario, List<RunResult>> results, Scenario scenario) {
		return results.keySet()
			.stream()
			.filter((s) -> s.consumer().floor() && s.concurrency() == scenario.concurrency()
					&& s.workMillis() == scenario.workMillis())
			.findFirst()
			.orElse(null);
	}

	private static double segment(List<RunResult> runs, String name) {
		return median(runs, (r) -> r.segments().get(name).percentileMillis(50));
	}

	private static double median(List<RunResult> runs, ToDoubleFunction<RunResult> value) {
		double[] values = runs.stream().mapToDouble(value).sorted().toArray();
		return values[values.length / 2];
	}

}

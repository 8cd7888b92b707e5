package dev.exactlyonce.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.test.ServerProcess;

/**
 * The starter side by side with DBOS Transact for Java (issue 43), in one run on this machine: the
 * same task (three checkpointed steps of about 180 bytes each, 0 ms then 50 ms of work per step)
 * handed over durably (DBOS: enqueued on a queue; the starter: a JetStream publish), {@code N}
 * tasks after a warm-up, at concurrency 8 and 64, each system against its own servers started
 * here: {@code dbos (PostgreSQL 15)} and {@code exactly-once jdbc (PostgreSQL 15)} on one
 * PostgreSQL server (fsync on, a database each), {@code exactly-once nats-kv} and
 * {@code exactly-once redis} (Redis with an append-only file, {@code appendfsync everysec}) on
 * nats-servers of their own ({@code exactly-once nats-kv, sync_interval always} on one that fsyncs every
 * write), and {@code exactly-once nats-kv, 3-node cluster (R3)}. Prints Markdown.
 * Not a test: {@code scripts/benchmark.sh --peers} ({@code -Dbenchmark.peers.tasks=3000},
 * {@code -Dbenchmark.peers.warm-up=300}, {@code -Dbenchmark.peers.concurrency=8,64},
 * {@code -Dbenchmark.peers.work=0,50}, {@code -Dbenchmark.peers.rows=dbos,jdbc,nats-kv,nats-kv-sync,redis,r3}; {@code nats-kv-sync} needs a
 * nats-server that knows {@code sync_interval: always}, 2.10 or newer; {@code nats-kv-one-by-one}, not run by default,
 * is the NATS KV row with every journal entry a write of its own, {@code exactlyonce.steps.done-delay=0s}),
 * {@code -Dbenchmark.peers.throughput=false}, {@code -Dbenchmark.peers.signals=false} and
 * {@code -Dbenchmark.peers.crash=false} to leave out the tasks/s rows, {@link SignalResume} and
 * {@link CrashResume}).
 * <p>
 * A closed loop: as many tasks are handed over and not yet finished as the concurrency, a new one
 * handed over as one finishes, so the latency (the start of the hand-over to the end of the task's
 * function, its last step's result checkpointed) is the system's pick-up and run time, not the age
 * of a backlog, and tasks/s is the concurrency divided by it. As many threads as the concurrency hand
 * over (each waits for room in the window, then makes one synchronous hand-over call), so no row is
 * bound by one thread's hand-over round trips; a second table shows per row the mean latency, the
 * mean tasks in flight by Little's law (a full window is the concurrency), the mean hand-over call
 * and the share of the hand-over threads' time spent waiting for room. CPU per task is this JVM's CPU
 * time (all threads, the hand-over included) and the row's server processes' over the timed
 * window, divided by {@code N}; statements per task are {@code pg_stat_statements} calls in the
 * row's database over the same window.
 */
public final class PeersBenchmark {

	private static final int TASKS = Integer.getInteger("benchmark.peers.tasks", 3000);

	private static final int WARM_UP = Integer.getInteger("benchmark.peers.warm-up", 300);

	private static final String[] CONCURRENCIES = System.getProperty("benchmark.peers.concurrency", "8,64").split(",");

	private static final String[] WORK = System.getProperty("benchmark.peers.work", "0,50").split(",");

	private static final Set<String> ROWS = Set
		.of(System.getProperty("benchmark.peers.rows", "dbos,jdbc,nats-kv,nats-kv-sync,redis,r3").split(","));

	private static final String HEADER = "| system | work per step ms | concurrency | tasks/s | end-to-end p50 ms "
			+ "| end-to-end p99 ms | CPU µs/task (JVM) | CPU µs/task (servers) | PostgreSQL statements/task |";

	private static final boolean CRASH = Boolean.parseBoolean(System.getProperty("benchmark.peers.crash", "true"));

	private static final boolean THROUGHPUT = Boolean
		.parseBoolean(System.getProperty("benchmark.peers.throughput", "true"));

	private static final boolean SIGNALS = Boolean.parseBoolean(System.getProperty("benchmark.peers.signals", "true"));

	private static final String CRASH_HEADER = "| system | tasks in step 2 at the kill -9 | seconds from the kill to the "
			+ "first step 2 resumed (new JVM's start included) | … to the new JVM's system started | … to the last task's "
			+ "step 3 | step 1 ran again | tasks that reached step 3 |";

	private static final String LOOP_HEADER = "| system | work per step ms | concurrency | tasks/s | mean latency ms "
			+ "| mean tasks in flight (tasks/s × mean latency) | mean hand-over call ms | hand-over threads' time waiting "
			+ "for room |";

	private final List<String> lines = new ArrayList<>();

	private final List<String> loopLines = new ArrayList<>();

	private final List<String> crashLines = new ArrayList<>();

	private final List<String> statementLines = new ArrayList<>();

	private final List<String> signalLines = new ArrayList<>();

	private PeersBenchmark() {
	}

	/**
	 * Runs the benchmark.
	 * @param args ignored
	 * @throws Exception when a server cannot start or a run fails
	 */
	public static void main(String[] args) throws Exception {
		new PeersBenchmark().run();
	}

	private void run() throws Exception {
		Instant started = Instant.now();
		System.out.printf(Locale.ROOT, "%d cores, Java %s, load average at start %s%n",
				Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), loadAverage());
		System.out.println(HEADER);
		System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
		if (ROWS.contains("dbos") || ROWS.contains("jdbc")) {
			try (PeerDatabases postgres = new PeerDatabases().start("dbos", "exactlyonce");
					NatsServerProcess nats = new NatsServerProcess().start()) {
				if (ROWS.contains("dbos")) {
					measureRow(new DbosPeer(PeerDatabases.url(postgres, "dbos"), postgres.user(), List.of(postgres), "dbos"),
							postgres);
				}
				if (ROWS.contains("jdbc")) {
					measureRow(new StarterPeer("exactly-once jdbc (PostgreSQL 15)", nats.url(), 1,
							Map.of("exactlyonce.store.type", "jdbc", "spring.datasource.url",
									PeerDatabases.url(postgres, "exactlyonce"), "spring.datasource.username",
									postgres.user(), "exactlyonce.store.jdbc.initialize-schema", "always"),
							List.of(nats, postgres), "exactlyonce"), postgres);
				}
			}
		}
		if (ROWS.contains("nats-kv")) {
			try (NatsServerProcess nats = new NatsServerProcess().start()) {
				StarterPeer natsKv = new StarterPeer("exactly-once nats-kv", nats.url(), 1,
						Map.of("exactlyonce.store.type", "nats-kv"), List.of(nats), null);
				measureRow(natsKv, null);
				if (CRASH) {
					// what the two settings that decide when a dead worker's task comes back buy (the defaults: 30 s, 20 s)
					crash(natsKv.label() + ", ack-wait 10 s, lease 8 s", "crash2", natsKv,
							"exactlyonce.consumers.peers-crash2.ack-wait=10s", "exactlyonce.store.lease=8s");
					// the takeover without its wait for a silent record, safe where one process runs per instance id
					crash(natsKv.label() + ", takeover silence 0 s (one process per id, as DBOS assumes)", "crash3", natsKv,
							"exactlyonce.takeover.silence=0s");
				}
			}
		}
		if (ROWS.contains("nats-kv-one-by-one")) {
			// what journaling a step's DONE with the next step's STARTED saves: every entry a write of its own
			try (NatsServerProcess nats = new NatsServerProcess().start()) {
				measureRow(new StarterPeer("exactly-once nats-kv, steps.done-delay 0 s (DONE alone)", nats.url(), 1,
						Map.of("exactlyonce.store.type", "nats-kv", "exactlyonce.steps.done-delay", "0s"), List.of(nats),
						null), null);
			}
		}
		if (ROWS.contains("nats-kv-sync")) {
			// nats-server fsyncs every 2 minutes by default; this is the row with a sync per write, as PostgreSQL's commits
			try (NatsServerProcess nats = NatsServerProcess.withConfiguration("jetstream {\n  sync_interval: always\n}\n")) {
				if (startsWithSyncAlways(nats)) {
					measureRow(new StarterPeer("exactly-once nats-kv, sync_interval always", nats.url(), 1,
							Map.of("exactlyonce.store.type", "nats-kv"), List.of(nats), null), null);
				}
			}
		}
		if (ROWS.contains("redis")) {
			try (NatsServerProcess nats = new NatsServerProcess().start();
					RedisServerProcess redis = new RedisServerProcess("everysec").start()) {
				measureRow(new StarterPeer("exactly-once redis", nats.url(), 1,
						Map.of("exactlyonce.store.type", "redis", "spring.data.redis.host", redis.host(),
								"spring.data.redis.port", Integer.toString(redis.port()), "spring.data.redis.timeout", "2s"),
						List.of(nats, redis), null), null);
			}
		}
		if (ROWS.contains("r3")) {
			try (NatsCluster cluster = NatsCluster.start(3)) {
				measureRow(new StarterPeer("exactly-once nats-kv, 3-node cluster (R3)", cluster.urls(), 3,
						Map.of("exactlyonce.store.type", "nats-kv"), cluster.nodes(), null), null);
			}
		}
		System.out.printf(Locale.ROOT, "%n%d tasks per row after a warm-up of %d; run took %d s; load average at end %s%n%n",
				TASKS, WARM_UP, Duration.between(started, Instant.now()).toSeconds(), loadAverage());
		System.out.println(HEADER);
		System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
		this.lines.forEach(System.out::println);
		if (!this.loopLines.isEmpty()) {
			System.out.printf(Locale.ROOT, "%nThe closed loop: is the window of tasks in flight full?%n%n");
			System.out.println(LOOP_HEADER);
			System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
			this.loopLines.forEach(System.out::println);
		}
		if (!this.statementLines.isEmpty()) {
			System.out.printf(Locale.ROOT, "%nPostgreSQL statements, most executed first (0 ms per step, the last concurrency)%n%n");
			System.out.println("| database | executions per task | mean ms | statement |");
			System.out.println("|---|---:|---:|---|");
			this.statementLines.forEach(System.out::println);
		}
		if (!this.signalLines.isEmpty()) {
			System.out.printf(Locale.ROOT, "%nSignal to resume: %d waiting tasks, signalled one after the other%n%n",
					SignalResume.WAITERS);
			System.out.println("| system | signals | signal -> past the wait p50 ms | p99 ms |");
			System.out.println("|---|---:|---:|---:|");
			this.signalLines.forEach(System.out::println);
		}
		if (!this.crashLines.isEmpty()) {
			System.out.println();
			System.out.println(CRASH_HEADER);
			System.out.println("|---|---:|---:|---:|---:|---:|---:|");
			this.crashLines.forEach(System.out::println);
		}
	}

	/** Starts a server configured with {@code sync_interval: always}; nats-server before 2.10 refuses the field. */
	private static boolean startsWithSyncAlways(NatsServerProcess nats) {
		try {
			nats.start();
			return true;
		}
		catch (IllegalStateException ex) {
			System.out.println("(row exactly-once nats-kv, sync_interval always left out: this nats-server does not start "
					+ "with 'sync_interval: always', which needs 2.10 or newer: set NATS_SERVER_BIN)");
			return false;
		}
	}

	private void measureRow(PeerSystem system, PeerDatabases postgres) throws Exception {
		for (String work : THROUGHPUT ? WORK : new String[0]) {
			for (String concurrency : CONCURRENCIES) {
				String line = measure(system, postgres, Integer.parseInt(concurrency.trim()), Integer.parseInt(work.trim()));
				this.lines.add(line);
				System.out.println(line);
			}
		}
		if (SIGNALS) {
			String line;
			try {
				line = SignalResume.measure(system);
			}
			catch (RuntimeException ex) {
				line = "| " + system.label() + " | failed: " + ex.getMessage() + " | | |";
			}
			this.signalLines.add(line);
			System.out.println(line);
		}
		if (CRASH) {
			crash(system.label(), "crash", system.workerArguments());
		}
	}

	/** A crash of a system's worker with further properties. */
	private void crash(String label, String scenario, PeerSystem system, String... properties) throws Exception {
		List<String> arguments = new ArrayList<>(system.workerArguments());
		arguments.addAll(List.of(properties));
		crash(label, scenario, arguments);
	}

	private void crash(String label, String scenario, List<String> workerArguments) throws Exception {
		String line;
		try {
			line = CrashResume.measure(label, scenario, workerArguments);
		}
		catch (RuntimeException ex) {
			line = "| " + label + " | failed: " + ex.getMessage() + " | | | | | |";
		}
		this.crashLines.add(line);
		System.out.println(line);
	}

	private String measure(PeerSystem system, PeerDatabases postgres, int concurrency, int workMillis) throws Exception {
		String scenario = "c" + concurrency + "-w" + workMillis;
		String prefix = system.label().replaceAll("[^a-z0-9]+", "") + "-" + scenario;
		AtomicReference<TaskCompletions> completions = new AtomicReference<>();
		try (PeerSystem.Workers workers = system.start(scenario, concurrency, workMillis, completions)) {
			runTasks(workers, completions, prefix + "-warm-", WARM_UP, concurrency);
			if (system.database() != null) {
				postgres.resetStatements();
			}
			long cpu = ProcessCpu.nanos();
			long serverCpu = serverNanos(system.servers());
			long start = System.nanoTime();
			TaskCompletions run = runTasks(workers, completions, prefix + "-", TASKS, concurrency);
			double seconds = (System.nanoTime() - start) / 1e9;
			this.loopLines.add(loopLine(system.label(), workMillis, concurrency, run, seconds));
			double jvmMicros = ProcessCpu.microsPerMessageSince(cpu, TASKS);
			double serverMicros = (serverNanos(system.servers()) - serverCpu) / 1000.0 / TASKS;
			if (system.database() != null && workMillis == 0 && concurrency == Integer.parseInt(CONCURRENCIES[CONCURRENCIES.length - 1].trim())) {
				this.statementLines.addAll(postgres.topStatements(system.database(), TASKS));
			}
			String statements = (system.database() != null)
					? String.format(Locale.ROOT, "%.1f", postgres.statements(system.database()) / (double) TASKS) : "—";
			return String.format(Locale.ROOT, "| %s | %d | %d | %.0f | %.1f | %.1f | %.0f | %.0f | %s |", system.label(),
					workMillis, concurrency, TASKS / seconds, run.latency().percentileMillis(50),
					run.latency().percentileMillis(99), jvmMicros, serverMicros, statements);
		}
	}

	/**
	 * Hands {@code tasks} over from {@code concurrency} threads, each waiting for room in the window
	 * before its next hand-over, so that no single thread's hand-over round trips bound the loop.
	 */
	private static TaskCompletions runTasks(PeerSystem.Workers workers, AtomicReference<TaskCompletions> completions,
			String prefix, int tasks, int concurrency) throws Exception {
		TaskCompletions run = new TaskCompletions(tasks, concurrency);
		completions.set(run);
		AtomicInteger next = new AtomicInteger();
		Callable<Void> handingOver = () -> {
			for (int i = next.getAndIncrement(); i < tasks; i = next.getAndIncrement()) {
				String taskId = prefix + i;
				run.handingOver(taskId);
				long handOver = System.nanoTime();
				workers.handOver(taskId);
				run.handedOver(System.nanoTime() - handOver);
			}
			return null;
		};
		ExecutorService threads = Executors.newFixedThreadPool(concurrency);
		try {
			for (Future<Void> thread : threads.invokeAll(Collections.nCopies(concurrency, handingOver))) {
				thread.get();
			}
		}
		finally {
			threads.shutdownNow();
		}
		if (!run.await(10)) {
			throw new IllegalStateException(prefix + ": not every task finished within 10 minutes");
		}
		return run;
	}

	/**
	 * A row of the loop table; Little's law: the mean number of tasks in flight is the throughput
	 * times the mean latency, and the window is full when it equals the concurrency (as many
	 * hand-over threads).
	 */
	private static String loopLine(String label, int workMillis, int concurrency, TaskCompletions run, double seconds) {
		double perSecond = TASKS / seconds;
		double meanMillis = run.latency().meanMillis();
		return String.format(Locale.ROOT, "| %s | %d | %d | %.0f | %.1f | %.1f | %.2f | %.0f %% |", label, workMillis,
				concurrency, perSecond, meanMillis, perSecond * meanMillis / 1000, run.handOverNanos() / 1e6 / TASKS,
				100 * run.waitingNanos() / (concurrency * seconds * 1e9));
	}

	private static long serverNanos(List<ServerProcess> servers) {
		return servers.stream().mapToLong((server) -> server.cpuTime().toNanos()).sum();
	}

	private static String loadAverage() throws java.io.IOException {
		return String.join(" ", List.of(Files.readString(Path.of("/proc/loadavg")).split(" ")).subList(0, 3));
	}

}

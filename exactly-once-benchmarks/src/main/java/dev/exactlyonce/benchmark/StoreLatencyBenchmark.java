package dev.exactlyonce.benchmark;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;
import com.zaxxer.hikari.HikariDataSource;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.firestore.FirestoreIdempotencyStore;
import dev.exactlyonce.store.memory.InMemoryIdempotencyStore;
import dev.exactlyonce.store.natskv.NatsKvBucketProvisioner;
import dev.exactlyonce.store.natskv.NatsKvBucketSpec;
import dev.exactlyonce.store.natskv.NatsKvIdempotencyStore;
import dev.exactlyonce.store.jdbc.JdbcDialect;
import dev.exactlyonce.store.jdbc.JdbcIdempotencyStore;
import dev.exactlyonce.store.jdbc.JdbcRecordTable;
import dev.exactlyonce.store.redis.RedisIdempotencyStore;
import dev.exactlyonce.test.FirestoreEmulatorProcess;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.MariaDbServerProcess;
import dev.exactlyonce.test.PostgresServerProcess;
import dev.exactlyonce.test.RedisServerProcess;

/**
 * Measures the latency of {@code tryClaim} on a fresh key, of a durable step (its STARTED and DONE
 * journal writes) and of {@code complete} on every store, one after the other in one JVM, each
 * against its own freshly started local server, from a single thread, and prints p50/p99 per store. Not a test: run it with
 * {@code mvn -B -pl exactly-once-test-support,exactly-once-autoconfigure,exactly-once-benchmarks -Pbenchmark -DskipTests verify}
 * ({@code -Dbenchmark.operations=N} to change the number of measured tasks,
 * {@code -Dbenchmark.stores=nats-kv,redis} to measure only some of memory, nats-kv, redis,
 * redis-aof, firestore, postgresql, mariadb); then one task of {@code -Dbenchmark.long-task-steps} steps
 * (10000; 0 skips it) per store, with a fresh server, by {@link LongTaskProbe}.
 */
public final class StoreLatencyBenchmark {

	private static final Duration TTL = Duration.ofHours(72);

	private static final Duration LEASE = Duration.ofMinutes(2);

	private static final List<String> STORES = List.of("memory", "nats-kv", "redis", "redis-aof", "firestore",
			"postgresql", "mariadb");

	private static final int STEPS_PER_TASK = 3;

	/** A step result of a typical size: a short JSON object, e.g. a reference to an output kept elsewhere. */
	private static final String RESULT = "{\"sha\":\"" + "0".repeat(40) + "\",\"url\":\"s3://agent-outputs/"
			+ "x".repeat(100) + "\"}";

	private StoreLatencyBenchmark() {
	}

	/**
	 * Runs the benchmark.
	 * @param args ignored
	 * @throws Exception when a server or store cannot start
	 */
	public static void main(String[] args) throws Exception {
		int operations = Integer.getInteger("benchmark.operations", 3000);
		int warmup = Integer.getInteger("benchmark.warmup", 500);
		Set<String> selected = Set.of(System.getProperty("benchmark.stores", String.join(",", STORES)).split(","));
		Map<String, Callable<BenchmarkedStore>> stores = new LinkedHashMap<>();
		stores.put("memory", StoreLatencyBenchmark::memory);
		stores.put("nats-kv", StoreLatencyBenchmark::natsKv);
		stores.put("redis", () -> redis(null));
		stores.put("redis-aof", () -> redis("always"));
		stores.put("firestore", StoreLatencyBenchmark::firestore);
		stores.put("postgresql", StoreLatencyBenchmark::postgresql);
		stores.put("mariadb", StoreLatencyBenchmark::mariadb);
		System.out.printf(Locale.ROOT, "%n%d tasks per store after %d warm-up tasks, each a claim, %d durable steps "
				+ "(STARTED + DONE with a %d-byte result) and a complete; one thread, local servers; latencies in ms%n%n",
				operations, warmup, STEPS_PER_TASK, RESULT.length());
		System.out.printf(Locale.ROOT, "| %-22s | %9s | %9s | %8s | %8s | %12s | %12s |%n", "store", "claim p50",
				"claim p99", "step p50", "step p99", "complete p50", "complete p99");
		System.out.printf(Locale.ROOT, "|%s|%s|%s|%s|%s|%s|%s|%n", "-".repeat(24), "-".repeat(11), "-".repeat(11),
				"-".repeat(10), "-".repeat(10), "-".repeat(14), "-".repeat(14));
		int longTaskSteps = Integer.getInteger("benchmark.long-task-steps", 10_000);
		for (Map.Entry<String, Callable<BenchmarkedStore>> store : stores.entrySet()) {
			if (!selected.contains(store.getKey())) {
				continue;
			}
			try (BenchmarkedStore benchmarked = store.getValue().call()) {
				run(benchmarked.store(), "warmup", warmup);
				Latencies latencies = run(benchmarked.store(), "measured", operations);
				System.out.printf(Locale.ROOT, "| %-22s | %9.3f | %9.3f | %8.3f | %8.3f | %12.3f | %12.3f |%n",
						benchmarked.label(), latencies.claims().percentileMillis(50),
						latencies.claims().percentileMillis(99), latencies.steps().percentileMillis(50),
						latencies.steps().percentileMillis(99), latencies.completions().percentileMillis(50),
						latencies.completions().percentileMillis(99));
			}
		}
		if (longTaskSteps > 0) {
			LongTaskProbe.printHeader(longTaskSteps, RESULT.length());
			for (Map.Entry<String, Callable<BenchmarkedStore>> store : stores.entrySet()) {
				if (selected.contains(store.getKey())) {
					try (BenchmarkedStore benchmarked = store.getValue().call()) {
						new LongTaskProbe(benchmarked.store(), longTaskSteps, RESULT).run(benchmarked.label());
					}
				}
			}
		}
	}

	private static Latencies run(IdempotencyStore store, String phase, int operations) {
		Latencies latencies = new Latencies(new LatencyRecorder(operations),
				new LatencyRecorder(operations * STEPS_PER_TASK), new LatencyRecorder(operations));
		for (int i = 0; i < operations; i++) {
			String key = "benchmark:" + phase + ":" + i;
			long start = System.nanoTime();
			ClaimResult result = store.tryClaim(key, "benchmark", LEASE);
			latencies.claims().record(start);
			if (!(result instanceof ClaimResult.Acquired acquired)) {
				throw new IllegalStateException("Fresh key " + key + " was not acquired: " + result);
			}
			Claim claim = acquired.claim();
			for (int step = 0; step < STEPS_PER_TASK; step++) {
				start = System.nanoTime();
				StepRecord started = StepRecord.started("step-" + step, claim.attempt(), claim.token(), Instant.now());
				store.recordStep(claim, started);
				store.recordStep(claim, started.done(RESULT, Instant.now()));
				latencies.steps().record(start);
			}
			start = System.nanoTime();
			store.complete(claim, Completion.completed("benchmark", i + 1, "ok"));
			latencies.completions().record(start);
		}
		return latencies;
	}

	/** One store's latencies: claims, durable steps (both journal writes of a step), completions. */
	private record Latencies(LatencyRecorder claims, LatencyRecorder steps, LatencyRecorder completions) {
	}

	private static ClaimRules rules() {
		return new ClaimRules(Clock.systemUTC(), TTL);
	}

	private static BenchmarkedStore memory() {
		return new BenchmarkedStore("memory", new InMemoryIdempotencyStore(rules()));
	}

	private static BenchmarkedStore natsKv() throws Exception {
		NatsServerProcess server = new NatsServerProcess().start();
		Connection connection = Nats.connect(server.url());
		NatsKvIdempotencyStore store = new NatsKvBucketProvisioner(connection, Duration.ofSeconds(5)).provisionStore(
				new NatsKvBucketSpec("benchmark", TTL, StorageType.File, 1, NatsKvBucketSpec.largestRecord(1024)),
				rules(), connection.getServerInfo().getMaxPayload());
		return new BenchmarkedStore("nats-kv (file, R1)", store, connection, server);
	}

	private static BenchmarkedStore redis(String appendFsync) {
		RedisServerProcess server = new RedisServerProcess(appendFsync).start();
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		RedisIdempotencyStore store = new RedisIdempotencyStore(connectionFactory, "benchmark:", TTL);
		String label = (appendFsync != null) ? "redis (AOF " + appendFsync + ")" : "redis (no persistence)";
		return new BenchmarkedStore(label, store, connectionFactory::destroy, server);
	}

	private static BenchmarkedStore postgresql() throws Exception {
		PostgresServerProcess server = new PostgresServerProcess(true).start();
		return jdbc("jdbc (PostgreSQL 15, fsync on)", server.jdbcUrl(), server.user(), server);
	}

	private static BenchmarkedStore mariadb() throws Exception {
		MariaDbServerProcess server = new MariaDbServerProcess().start();
		return jdbc("jdbc (MariaDB)", server.jdbcUrl(), "root", server);
	}

	private static BenchmarkedStore jdbc(String label, String url, String user, AutoCloseable server) throws Exception {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(url);
		dataSource.setUsername(user);
		JdbcRecordTable table = new JdbcRecordTable(JdbcRecordTable.DEFAULT_NAME, JdbcDialect.of(dataSource));
		table.createIfMissing(dataSource);
		return new BenchmarkedStore(label, new JdbcIdempotencyStore(dataSource, table, TTL), dataSource, server);
	}

	private static BenchmarkedStore firestore() {
		FirestoreEmulatorProcess emulator = new FirestoreEmulatorProcess().start();
		Firestore firestore = FirestoreOptions.newBuilder()
			.setProjectId("exactly-once-benchmark")
			.setEmulatorHost(emulator.hostPort())
			.build()
			.getService();
		FirestoreIdempotencyStore store = new FirestoreIdempotencyStore(firestore, "task-idempotency", rules(),
				Duration.ofSeconds(30));
		return new BenchmarkedStore("firestore (emulator)", store, firestore, emulator);
	}

}

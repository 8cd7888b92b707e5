package dev.exactlyonce.benchmark;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;
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
import dev.exactlyonce.store.firestore.FirestoreIdempotencyStore;
import dev.exactlyonce.store.memory.InMemoryIdempotencyStore;
import dev.exactlyonce.store.natskv.NatsKvBucketProvisioner;
import dev.exactlyonce.store.natskv.NatsKvBucketSpec;
import dev.exactlyonce.store.natskv.NatsKvIdempotencyStore;
import dev.exactlyonce.store.redis.RedisIdempotencyStore;
import dev.exactlyonce.test.FirestoreEmulatorProcess;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.RedisServerProcess;

/**
 * Measures the latency of {@code tryClaim} on a fresh key and of {@code complete} on every store,
 * one after the other in one JVM, each against its own freshly started local server, from a single
 * thread, and prints p50/p99 per store. Not a test: run it with
 * {@code mvn -B -pl exactly-once-test-support,exactly-once-autoconfigure,exactly-once-benchmarks -Pbenchmark -DskipTests verify}
 * ({@code -Dbenchmark.operations=N} to change the number of measured claim/complete pairs).
 */
public final class StoreLatencyBenchmark {

	private static final Duration TTL = Duration.ofHours(72);

	private static final Duration LEASE = Duration.ofMinutes(2);

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
		List<Callable<BenchmarkedStore>> stores = List.of(StoreLatencyBenchmark::memory, StoreLatencyBenchmark::natsKv,
				() -> redis(null), () -> redis("always"), StoreLatencyBenchmark::firestore);
		System.out.printf(Locale.ROOT, "%n%d claim+complete pairs per store after %d warm-up pairs, one thread, "
				+ "local servers; latencies in ms%n%n", operations, warmup);
		System.out.printf(Locale.ROOT, "| %-22s | %9s | %9s | %12s | %12s |%n", "store", "claim p50", "claim p99",
				"complete p50", "complete p99");
		System.out.printf(Locale.ROOT, "|%s|%s|%s|%s|%s|%n", "-".repeat(24), "-".repeat(11), "-".repeat(11),
				"-".repeat(14), "-".repeat(14));
		for (Callable<BenchmarkedStore> factory : stores) {
			try (BenchmarkedStore benchmarked = factory.call()) {
				run(benchmarked.store(), "warmup", warmup);
				LatencyRecorder[] latencies = run(benchmarked.store(), "measured", operations);
				System.out.printf(Locale.ROOT, "| %-22s | %9.3f | %9.3f | %12.3f | %12.3f |%n", benchmarked.label(),
						latencies[0].percentileMillis(50), latencies[0].percentileMillis(99),
						latencies[1].percentileMillis(50), latencies[1].percentileMillis(99));
			}
		}
	}

	private static LatencyRecorder[] run(IdempotencyStore store, String phase, int operations) {
		LatencyRecorder claims = new LatencyRecorder(operations);
		LatencyRecorder completions = new LatencyRecorder(operations);
		for (int i = 0; i < operations; i++) {
			String key = "benchmark:" + phase + ":" + i;
			long start = System.nanoTime();
			ClaimResult result = store.tryClaim(key, "benchmark", LEASE);
			claims.record(start);
			if (!(result instanceof ClaimResult.Acquired acquired)) {
				throw new IllegalStateException("Fresh key " + key + " was not acquired: " + result);
			}
			Claim claim = acquired.claim();
			start = System.nanoTime();
			store.complete(claim, Completion.completed("benchmark", i + 1, "ok"));
			completions.record(start);
		}
		return new LatencyRecorder[] { claims, completions };
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
		NatsKvIdempotencyStore store = new NatsKvIdempotencyStore(new NatsKvBucketProvisioner(connection, Duration.ofSeconds(5))
			.provision(new NatsKvBucketSpec("benchmark", TTL, StorageType.File, 1, NatsKvBucketSpec.largestRecord(1024))),
				rules());
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

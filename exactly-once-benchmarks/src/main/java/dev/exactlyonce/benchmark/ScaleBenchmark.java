package dev.exactlyonce.benchmark;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Shows how the stores' costs change with the number of records they hold (issue 19). Each store,
 * on its own local server, is grown level by level to the given record counts by bulk-loading
 * completed records in the form the store writes them; at each level it measures, from one thread,
 * {@code tryClaim} on fresh keys and {@code complete} (p50/p99 after a warm-up), the cost of a record,
 * a full {@link RecordScanner#scan} (time and this JVM's heap growth: it should not grow with the
 * store), and, for NATS KV, a graceful restart of nats-server until a stored key reads again. Prints
 * a Markdown table per store. Not a test: run it with {@code scripts/benchmark.sh --scale}
 * ({@code -Dbenchmark.scale.levels=0,100000,1000000,10000000} for the levels,
 * {@code -Dbenchmark.stores=nats-kv} for one store, {@code -Dbenchmark.operations} and
 * {@code -Dbenchmark.warmup} for the claims measured and warmed up at each level).
 */
public final class ScaleBenchmark {

	private static final List<String> STORES = List.of("nats-kv", "redis");

	/** The template record each store starts with. */
	private static final long TEMPLATES = 1;

	private final int operations;

	private final int warmup;

	private long claimed;

	private ScaleBenchmark(int operations, int warmup) {
		this.operations = operations;
		this.warmup = warmup;
	}

	/**
	 * Runs the benchmark.
	 * @param args ignored
	 * @throws Exception when a server or store fails
	 */
	public static void main(String[] args) throws Exception {
		String levelsProperty = System.getProperty("benchmark.scale.levels", "0,100000,1000000");
		long[] levels = Arrays.stream(levelsProperty.split(",")).mapToLong((level) -> Long.parseLong(level.trim())).toArray();
		for (int i = 0; i < levels.length; i++) {
			if (levels[i] < 0 || (i > 0 && levels[i] <= levels[i - 1])) {
				throw new IllegalArgumentException("benchmark.scale.levels must grow from 0 or more: " + levelsProperty);
			}
		}
		int operations = Integer.getInteger("benchmark.operations", 2000);
		int warmup = Integer.getInteger("benchmark.warmup", 300);
		String stores = System.getProperty("benchmark.stores", String.join(",", STORES));
		Set<String> selected = Set.of(stores.split(","));
		System.out.printf(Locale.ROOT, "%nscripts/benchmark.sh --scale -Dbenchmark.scale.levels=%s -Dbenchmark.stores=%s "
				+ "-Dbenchmark.operations=%d -Dbenchmark.warmup=%d%n", levelsProperty, stores, operations, warmup);
		System.out.printf(Locale.ROOT, "%d cores, %s, Java %s, max heap %d MiB; levels %s records; at each level %d "
				+ "claims + completes on fresh keys after %d warm-up ones, one thread, latencies in ms%n",
				Runtime.getRuntime().availableProcessors(), System.getProperty("os.name") + " " + System.getProperty("os.arch"),
				System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20,
				Arrays.stream(levels).mapToObj(Long::toString).collect(Collectors.joining(", ")), operations, warmup);
		ClaimRules rules = new ClaimRules(Clock.systemUTC(), ScaleRecords.TTL);
		Map<String, Callable<ScaledStore>> factories = new LinkedHashMap<>();
		factories.put("nats-kv", () -> NatsKvScaledStore.start(rules));
		factories.put("redis", RedisScaledStore::start);
		for (Map.Entry<String, Callable<ScaledStore>> factory : factories.entrySet()) {
			if (selected.contains(factory.getKey())) {
				try (ScaledStore store = factory.getValue().call()) {
					new ScaleBenchmark(operations, warmup).grow(store, levels);
				}
			}
		}
	}

	private void grow(ScaledStore store, long[] levels) throws Exception {
		System.out.printf(Locale.ROOT, "%n%s, template record: %s%n", store.label(), store.templateDescription());
		List<ScaleRow> rows = new ArrayList<>();
		long filled = 0;
		for (long level : levels) {
			long start = System.nanoTime();
			store.fill(filled, level);
			double fillSeconds = (System.nanoTime() - start) / 1e9;
			double fillPerSecond = (level > filled) ? (level - filled) / fillSeconds : Double.NaN;
			progress(store, "filled %d records to %d in %.1f s", level - filled, level, fillSeconds);
			filled = level;
			awaitAnswering(store);
			claimAndComplete(store, this.warmup, null);
			ScaleRecords.Latencies latencies = new ScaleRecords.Latencies(this.operations);
			claimAndComplete(store, this.operations, latencies);
			double bytesPerRecord = store.bytesPerRecord();
			double diskBytesPerRecord = store.diskBytesPerRecord();
			long stored = TEMPLATES + filled + this.claimed;
			ScanProbe.Result scan = scan(store, stored);
			double restartSeconds = (level > 0) ? store.restartSeconds(ScaleRecords.filledKey(level - 1)) : Double.NaN;
			rows.add(new ScaleRow(level, stored, fillPerSecond, latencies, bytesPerRecord, diskBytesPerRecord, scan,
					restartSeconds));
			progress(store, "measured %d records", level);
		}
		System.out.printf("%n%s%n", store.label());
		System.out.println(ScaleRow.HEADER);
		rows.forEach((row) -> System.out.println(row.markdown()));
	}

	/**
	 * Waits until the store answers a read after a fill (a server that has just stored millions of
	 * records can take longer than a request timeout to answer the next one), and says how long.
	 */
	private static void awaitAnswering(ScaledStore store) throws InterruptedException {
		long start = System.nanoTime();
		for (int attempt = 1;; attempt++) {
			try {
				store.store().find("benchmark:settled");
				if (attempt > 1) {
					progress(store, "answered again %.1f s after the fill", (System.nanoTime() - start) / 1e9);
				}
				return;
			}
			catch (StoreUnavailableException ex) {
				if (System.nanoTime() - start > TimeUnit.MINUTES.toNanos(5)) {
					throw ex;
				}
				progress(store, "not answering after the fill (%s), retrying", ex.getMessage());
				Thread.sleep(1000);
			}
		}
	}

	private void claimAndComplete(ScaledStore store, int count, ScaleRecords.Latencies latencies) {
		for (int i = 0; i < count; i++) {
			this.claimed++;
			ScaleRecords.claimAndComplete(store.store(), ScaleRecords.claimedKey(this.claimed), this.claimed, latencies);
		}
	}

	/**
	 * Scans the whole store; {@code null} when the store could not be read, a failure when it read
	 * another number of records than it holds.
	 */
	private static ScanProbe.Result scan(ScaledStore store, long stored) throws InterruptedException {
		ScanProbe.Result scan;
		try {
			scan = ScanProbe.scan((RecordScanner) store.store(), stored);
		}
		catch (StoreUnavailableException ex) {
			progress(store, "scan of %d records failed: %s", stored, ex.getMessage());
			return null;
		}
		if (scan.records() != stored) {
			throw new IllegalStateException(store.label() + " scan counted " + scan.records() + " records but the store "
					+ "holds " + stored);
		}
		return scan;
	}

	private static void progress(ScaledStore store, String format, Object... args) {
		System.out.printf(Locale.ROOT, "  %s: %s%n", store.label(), String.format(Locale.ROOT, format, args));
	}

}

package dev.exactlyonce.benchmark;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.impl.NatsMessage;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.PostgresServerProcess;

/**
 * Child tasks on the NATS KV store: parents that each start {@code N} children
 * ({@code startChild}) and await them all ({@code awaitAll}), one parent at a time; each child
 * returns a short string once its parent reached {@code awaitAll} (after
 * {@code -Dbenchmark.children.work-ms} of simulated work, 0 by default), so that every child
 * finishes after its parent waits. Per row ({@code benchmark.children.rows}, default 20 parents of
 * 10, 5 of 100, 2 of 1,000, after a warm-up parent of 10): from the last child's handler returning
 * to the parent's handler running past {@code awaitAll} (p50/p99 over the parents), the parent's
 * resumptions (its handler's runs after the first), the time to start the children, the children
 * returned per second, the wall time from publishing the parent to it running past
 * {@code awaitAll}, the writes per child to the idempotency bucket and to the waits bucket (the
 * revisions their KV streams gained over the row, the parents' own writes included, divided by the
 * children), and the wait tickets per parent. {@code -Dbenchmark.children.store=jdbc} puts the
 * records on a PostgreSQL of its own (fsync on) instead; its writes are not counted (the waits
 * bucket's still are). Not a test: run {@code scripts/benchmark.sh --children}; the server is
 * {@code NATS_SERVER_BIN} (else /usr/sbin/nats-server).
 */
public final class ChildrenBenchmark {

	private static final String ROWS = System.getProperty("benchmark.children.rows", "10x20,100x5,1000x2");

	private static final boolean JDBC = "jdbc".equals(System.getProperty("benchmark.children.store", "nats-kv"));

	private static final String STREAM = "CHILDBENCH";

	private static final String PARENTS = "parents";

	private static final String CHILDREN = "children";

	private static final String STORE_BUCKET = "KV_exactly-once-idempotency";

	private static final String WAITS_BUCKET = "KV_EXACTLYONCE_WAITS";

	private static final String TICKETS = "EXACTLYONCE_WAIT_TICKETS";

	private static final Duration PATIENCE = Duration.ofMinutes(10);

	private final JetStream jetStream;

	private final JetStreamManagement management;

	private final ChildProbe probe = new ChildProbe();

	private int parents;

	private ChildrenBenchmark(Connection connection) throws Exception {
		this.jetStream = connection.jetStream();
		this.management = connection.jetStreamManagement();
	}

	/**
	 * Runs the benchmark.
	 * @param args ignored
	 * @throws Exception when the server cannot start or a run fails
	 */
	public static void main(String[] args) throws Exception {
		try (NatsServerProcess nats = new NatsServerProcess().start(); Connection connection = Nats.connect(nats.url());
				PostgresServerProcess postgres = JDBC ? new PostgresServerProcess(true).start() : null) {
			List<String> store = (postgres != null) ? List.of("exactlyonce.store.type=jdbc",
					"spring.datasource.url=" + postgres.jdbcUrl(), "spring.datasource.username=" + postgres.user(),
					"exactlyonce.store.jdbc.initialize-schema=always")
					: List.of("exactlyonce.store.type=nats-kv", "spring.autoconfigure.exclude="
							+ "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration");
			System.out.printf(Locale.ROOT, "%n%d cores, Java %s, nats-server %s on loopback, %s store; parents: "
					+ "concurrency 4, children: concurrency 8, max-ack-pending 64, %d ms of work each; sync acks; "
					+ "one parent at a time%n%n", Runtime.getRuntime().availableProcessors(),
					System.getProperty("java.version"), connection.getServerInfo().getVersion(),
					JDBC ? "JDBC (PostgreSQL, fsync on)" : "NATS KV", Long.getLong("benchmark.children.work-ms", 0));
			new ChildrenBenchmark(connection).run(nats.url(), store);
		}
	}

	private void run(String natsUrl, List<String> store) throws Exception {
		try (ConfigurableApplicationContext context = start(natsUrl, store)) {
			parent(10);
			System.out.println("| children | parents | last child returned -> parent past awaitAll p50 ms | p99 ms "
					+ "| resumptions per parent | starting the children s (mean) | children returned per s (mean) "
					+ "| publish -> parent past awaitAll s (mean) | store writes per child | waits-bucket writes per child "
					+ "| wait tickets per parent "
					+ "| load average (1 min) before, after |");
			System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
			for (String row : ROWS.split(",")) {
				String[] sizes = row.trim().split("x");
				row(Integer.parseInt(sizes[0]), Integer.parseInt(sizes[1]));
			}
			System.out.println();
		}
	}

	private void row(int children, int parentCount) throws Exception {
		String loadBefore = loadAverage();
		Map<String, Long> before = revisions();
		LatencyRecorder resumption = new LatencyRecorder(parentCount);
		long resumptions = 0;
		long fanOut = 0;
		double rate = 0;
		long wall = 0;
		for (int i = 0; i < parentCount; i++) {
			long published = System.nanoTime();
			ChildProbe.Family family = parent(children);
			resumption.recordNanos(family.lastChildToResumedNanos());
			resumptions += family.resumptions();
			fanOut += family.fanOutNanos();
			rate += family.childrenPerSecond();
			wall += family.resumedAt() - published;
		}
		await("consumers idle", () -> idle(PARENTS) && idle(CHILDREN));
		Map<String, Long> after = revisions();
		long total = (long) children * parentCount;
		String storeWrites = JDBC ? "not counted"
				: String.format(Locale.ROOT, "%.2f", delta(before, after, STORE_BUCKET) / (double) total);
		System.out.printf(Locale.ROOT, "| %d | %d | %.1f | %.1f | %.2f | %.2f | %.0f | %.2f | %s | %.2f | %.2f | %s, %s |%n",
				children, parentCount, resumption.percentileMillis(50), resumption.percentileMillis(99),
				resumptions / (double) parentCount, fanOut / 1e9 / parentCount, rate / parentCount,
				wall / 1e9 / parentCount, storeWrites, delta(before, after, WAITS_BUCKET) / (double) total,
				delta(before, after, TICKETS) / (double) parentCount, loadBefore, loadAverage());
		System.err.println("revisions gained per stream over the row of " + children + ": " + deltas(before, after));
	}

	/** Publishes one parent of {@code children} children and waits until it ran past {@code awaitAll}. */
	private ChildProbe.Family parent(int children) throws Exception {
		String parentId = "p" + this.parents++;
		byte[] data = String.format(Locale.ROOT, "{\"parentId\":\"%s\",\"children\":%d}", parentId, children)
			.getBytes(StandardCharsets.UTF_8);
		this.jetStream.publish(NatsMessage.builder().subject("childbench.parents").data(data).build(),
				PublishOptions.builder().messageId(parentId).build());
		ChildProbe.Family family = this.probe.family(parentId);
		await("parent " + parentId + " past awaitAll", family::done);
		return family;
	}

	private ConfigurableApplicationContext start(String natsUrl, List<String> store) {
		List<String> properties = new ArrayList<>(store);
		properties.addAll(List.of("exactlyonce.nats.servers=" + natsUrl,
					"exactlyonce.streams." + STREAM + ".subjects=childbench.>",
					"exactlyonce.consumers." + PARENTS + ".stream=" + STREAM,
					"exactlyonce.consumers." + PARENTS + ".filter-subject=childbench.parents",
					"exactlyonce.consumers." + PARENTS + ".concurrency=4",
					"exactlyonce.consumers." + PARENTS + ".ack-wait=30s",
					"exactlyonce.consumers." + CHILDREN + ".stream=" + STREAM,
					"exactlyonce.consumers." + CHILDREN + ".filter-subject=" + ChildrenBenchmarkApplication.CHILD_SUBJECT,
					"exactlyonce.consumers." + CHILDREN + ".concurrency=8",
					"exactlyonce.consumers." + CHILDREN + ".max-ack-pending=64",
					"exactlyonce.consumers." + CHILDREN + ".ack-wait=30s", "exactlyonce.listener.ack-mode=sync",
					"exactlyonce.dead-letter.stream=", "benchmark.children.parents=" + PARENTS,
					"benchmark.children.children=" + CHILDREN, "spring.main.banner-mode=off", "logging.level.root=WARN",
					"spring.cloud.gcp.core.enabled=false", "spring.cloud.gcp.firestore.enabled=false"));
		return new SpringApplicationBuilder(ChildrenBenchmarkApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.initializers((ctx) -> ctx.getBeanFactory().registerSingleton("childProbe", this.probe))
			.run();
	}

	/** The last sequence of every stream: a KV bucket's stream gains one per write (put, create, update, delete). */
	private Map<String, Long> revisions() throws Exception {
		Map<String, Long> last = new TreeMap<>();
		for (String stream : this.management.getStreamNames()) {
			last.put(stream, this.management.getStreamInfo(stream).getStreamState().getLastSequence());
		}
		return last;
	}

	private static long delta(Map<String, Long> before, Map<String, Long> after, String stream) {
		return after.getOrDefault(stream, 0L) - before.getOrDefault(stream, 0L);
	}

	private static Map<String, Long> deltas(Map<String, Long> before, Map<String, Long> after) {
		Map<String, Long> gained = new TreeMap<>();
		after.keySet().forEach((stream) -> gained.put(stream, delta(before, after, stream)));
		return gained;
	}

	/** Whether a consumer has nothing left to deliver and nothing unacknowledged. */
	private boolean idle(String consumer) {
		try {
			ConsumerInfo info = this.management.getConsumerInfo(STREAM, consumer);
			return info.getNumPending() == 0 && info.getNumAckPending() == 0;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String loadAverage() throws Exception {
		return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
	}

	private static void await(String what, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + PATIENCE.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(what + ": not within " + PATIENCE);
			}
			Thread.sleep(5);
		}
	}

}

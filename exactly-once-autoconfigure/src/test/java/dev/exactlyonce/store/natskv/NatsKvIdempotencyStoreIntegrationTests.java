package dev.exactlyonce.store.natskv;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.AbstractRemoteIdempotencyStoreContractTests;
import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.ServerProcess;
import dev.exactlyonce.test.TcpProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The store contract against {@link NatsKvIdempotencyStore} on a real {@code nats-server}.
 */
class NatsKvIdempotencyStoreIntegrationTests extends AbstractRemoteIdempotencyStoreContractTests {

	private final AtomicInteger buckets = new AtomicInteger();

	private NatsServerProcess server;

	private Connection connection;

	private Connection proxiedConnection;

	@Override
	protected void startInfrastructure() throws Exception {
		this.server = new NatsServerProcess().start();
		this.connection = Nats.connect(new Options.Builder().server(this.server.url())
			.maxReconnects(-1)
			.reconnectWait(Duration.ofMillis(200))
			.build());
	}

	@Override
	protected void stopInfrastructure() throws Exception {
		if (this.connection != null) {
			this.connection.close();
		}
		if (this.proxiedConnection != null) {
			this.proxiedConnection.close();
		}
		this.server.close();
	}

	@Override
	protected IdempotencyStore createStore(Duration completedTtl) {
		String bucket = "contract-" + this.buckets.incrementAndGet();
		return new NatsKvBucketProvisioner(this.connection, Duration.ofSeconds(2)).provisionStore(
				new NatsKvBucketSpec(bucket, completedTtl, StorageType.File, 1, NatsKvBucketSpec.largestRecord(1024)),
				new ClaimRules(Clock.systemUTC(), completedTtl), this.connection.getServerInfo().getMaxPayload());
	}

	@Override
	protected IdempotencyStore createStoreBehind(TcpProxy proxy) throws Exception {
		this.proxiedConnection = Nats.connect(new Options.Builder().server("nats://127.0.0.1:" + proxy.port())
			.maxReconnects(-1)
			.reconnectWait(Duration.ofMillis(200))
			.build());
		return new NatsKvBucketProvisioner(this.proxiedConnection, CLIENT_TIMEOUT).provisionStore(
				new NatsKvBucketSpec("contract-behind-proxy", LONG_TTL, StorageType.File, 1,
						NatsKvBucketSpec.largestRecord(1024)),
				new ClaimRules(Clock.systemUTC(), LONG_TTL), this.proxiedConnection.getServerInfo().getMaxPayload());
	}

	@Override
	protected ServerProcess server() {
		return this.server;
	}

	/**
	 * Journal parts are read with a watch (a consumer) over the record key's {@code .j.} subjects;
	 * the record itself with a get of its own key.
	 */
	@Test
	void aDuplicateClaimReadsNoJournalPart() throws Exception {
		IdempotencyStore store = createStore(LONG_TTL);
		try (JetStreamApiMonitor journalPartReads = new JetStreamApiMonitor(this.connection,
				(request) -> request.getSubject().startsWith("$JS.API.CONSUMER.") || request.getSubject().contains(".j.")
						|| (request.getData() != null && new String(request.getData(), StandardCharsets.UTF_8).contains(".j.")))) {
			assertADuplicateClaimReadsNoJournalEntry(store, journalPartReads::count);
		}
	}

	@Test
	void aScanHandsEachRecordOfTheBucketAsItWasOnceAndEndsWhileTheBucketKeepsBeingWritten() throws Exception {
		IdempotencyStore store = createStore(LONG_TTL);
		Duration lease = Duration.ofMinutes(1);
		for (int i = 0; i < 200; i++) {
			store.tryClaim("before-" + i, "worker-1", lease);
		}
		Map<String, Integer> handed = new ConcurrentHashMap<>();
		int written;
		try (BackgroundWriter writer = new BackgroundWriter((n) -> {
			ClaimResult claimed = store.tryClaim("during-" + n, "worker-2", lease);
			store.release(((ClaimResult.Acquired) claimed).claim(), "rewritten while the scan runs");
		}, Duration.ofMillis(5))) {
			writer.awaitWrites(20);
			((RecordScanner) store).scan((record) -> {
				handed.merge(record.key(), 1, Integer::sum);
				LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
			});
			written = writer.written();
		}

		List<String> before = IntStream.range(0, 200).mapToObj((i) -> "before-" + i).toList();
		assertThat(handed.keySet()).containsAll(before);
		assertThat(before).allSatisfy((key) -> assertThat(handed.get(key)).as(key).isOne());
		assertThat(written).as("claims written while the scan ran").isGreaterThan(handed.size() - 200);
	}

	@Test
	void aScanOfABucketWrittenFasterThanItReadsFailsInsteadOfMissingRecords() throws Exception {
		IdempotencyStore store = createStore(LONG_TTL);
		Duration lease = Duration.ofMinutes(1);
		for (int i = 0; i < 50; i++) {
			store.tryClaim("existing-" + i, "worker-1", lease);
		}
		try (BackgroundWriter writer = new BackgroundWriter((n) -> store.tryClaim("new-" + n, "worker-2", lease),
				Duration.ofMillis(2))) {
			writer.awaitWrites(10);
			assertThatExceptionOfType(StoreUnavailableException.class)
				.isThrownBy(() -> ((RecordScanner) store)
					.scan((record) -> LockSupport.parkNanos(Duration.ofMillis(20).toNanos())))
				.withMessageContaining("is written faster than its scan reads it");
		}
	}

	@Test
	void aKeyRewrittenWhileTheScanRunsIsHandedWithItsLaterValue() {
		IdempotencyStore store = createStore(LONG_TTL);
		Claim last = null;
		for (int i = 0; i < 300; i++) {
			last = ((ClaimResult.Acquired) store.tryClaim("kept-" + i, "worker-1", Duration.ofMinutes(1))).claim();
		}
		Claim rewrittenDuringTheScan = last;
		AtomicBoolean rewritten = new AtomicBoolean();
		Map<String, RecordState> handed = new ConcurrentHashMap<>();

		((RecordScanner) store).scan((record) -> {
			if (rewritten.compareAndSet(false, true)) {
				store.release(rewrittenDuringTheScan, "rewritten while the scan runs");
			}
			handed.put(record.key(), record.state());
		});

		assertThat(handed).hasSize(300);
		assertThat(handed.get("kept-299")).isEqualTo(RecordState.FAILED);
	}

	@Test
	void aScanWaitsForTheServerToSetUpItsWatchLongerThanTheRequestTimeout() throws Exception {
		try (TcpProxy proxy = new TcpProxy(this.server.port());
				Connection slowConnection = Nats.connect(new Options.Builder()
					.server("nats://127.0.0.1:" + proxy.port())
					.build())) {
			IdempotencyStore store = new NatsKvBucketProvisioner(slowConnection, CLIENT_TIMEOUT).provisionStore(
					new NatsKvBucketSpec("scan-answered-late", LONG_TTL, StorageType.File, 1,
							NatsKvBucketSpec.largestRecord(1024)),
					new ClaimRules(Clock.systemUTC(), LONG_TTL), slowConnection.getServerInfo().getMaxPayload());
			for (int i = 0; i < 3; i++) {
				store.tryClaim("late-" + i, "worker-1", Duration.ofMinutes(1));
			}
			proxy.delayReplies(CLIENT_TIMEOUT.multipliedBy(3));
			List<String> scanned = new CopyOnWriteArrayList<>();

			((RecordScanner) store).scan((record) -> scanned.add(record.key()));

			assertThat(scanned).containsExactlyInAnyOrder("late-0", "late-1", "late-2");
		}
	}

	/** Writes to a store on a thread of its own, pausing between writes, until closed. */
	private static final class BackgroundWriter implements AutoCloseable {

		private final AtomicBoolean writing = new AtomicBoolean(true);

		private final AtomicInteger written = new AtomicInteger();

		private final Thread thread;

		BackgroundWriter(IntConsumer write, Duration pause) {
			this.thread = new Thread(() -> {
				while (this.writing.get()) {
					write.accept(this.written.incrementAndGet());
					LockSupport.parkNanos(pause.toNanos());
				}
			});
			this.thread.start();
		}

		void awaitWrites(int count) {
			await().atMost(Duration.ofSeconds(10)).until(() -> this.written.get() > count);
		}

		int written() {
			return this.written.get();
		}

		@Override
		public void close() throws InterruptedException {
			this.writing.set(false);
			this.thread.join();
		}

	}

}

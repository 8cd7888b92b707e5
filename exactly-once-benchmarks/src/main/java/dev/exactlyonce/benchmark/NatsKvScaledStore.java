package dev.exactlyonce.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamState;
import io.nats.client.impl.ErrorListenerLoggerImpl;

import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.natskv.NatsKvBucketProvisioner;
import dev.exactlyonce.store.natskv.NatsKvBucketSpec;
import dev.exactlyonce.store.natskv.NatsKvIdempotencyStore;
import dev.exactlyonce.test.NatsServerProcess;

/**
 * The NATS KV store (file storage, one replica) on its own nats-server. Its cost of a record is the
 * bucket stream's bytes per message; a restart stops the server gracefully and starts it on the same
 * store directory and port, then reads a stored key over a new connection until it answers.
 */
final class NatsKvScaledStore implements ScaledStore {

	private static final NatsKvBucketSpec BUCKET = new NatsKvBucketSpec("benchmark", ScaleRecords.TTL,
			StorageType.File, 1, NatsKvBucketSpec.largestRecord(1024));

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration RESTART_TIMEOUT = Duration.ofMinutes(10);

	private final NatsServerProcess server;

	private final ClaimRules rules;

	private Connection connection;

	private NatsKvIdempotencyStore store;

	private NatsKvFiller filler;

	private NatsKvScaledStore(NatsServerProcess server, ClaimRules rules) {
		this.server = server;
		this.rules = rules;
	}

	/**
	 * Starts a server, provisions the bucket and writes the template record.
	 * @param rules the claim rules
	 * @return the store
	 * @throws Exception when the server or the bucket cannot be set up
	 */
	static NatsKvScaledStore start(ClaimRules rules) throws Exception {
		NatsKvScaledStore scaled = new NatsKvScaledStore(restorableServer().start(), rules);
		scaled.open(scaled.connect());
		ScaleRecords.writeTemplate(scaled.store);
		scaled.filler = NatsKvFiller.of(scaled.connection, BUCKET.name());
		return scaled;
	}

	/**
	 * A nats-server that may take the whole restart limit to start: it restores JetStream's streams
	 * before it listens, and a bucket of 10,000,000 records took longer than the usual 20 s.
	 */
	private static NatsServerProcess restorableServer() {
		return new NatsServerProcess() {

			@Override
			protected Duration startupTimeout() {
				return RESTART_TIMEOUT;
			}

		};
	}

	/** A connection that logs what jnats logs by default but the flow control of the scan's watch. */
	private Connection connect() throws IOException, InterruptedException {
		return Nats.connect(Options.builder().server(this.server.url()).errorListener(new ErrorListenerLoggerImpl() {

			@Override
			public void flowControlProcessed(Connection connection, JetStreamSubscription subscription, String subject,
					FlowControlSource source) {
			}

		}).build());
	}

	private void open(Connection opened) throws IOException, JetStreamApiException {
		this.connection = opened;
		this.store = new NatsKvBucketProvisioner(opened, REQUEST_TIMEOUT).provisionStore(BUCKET, this.rules,
				opened.getServerInfo().getMaxPayload());
	}

	@Override
	public String label() {
		return "nats-kv (file, R1)";
	}

	@Override
	public String templateDescription() {
		return this.filler.description();
	}

	@Override
	public IdempotencyStore store() {
		return this.store;
	}

	@Override
	public void fill(long from, long to) {
		this.filler.fill(from, to);
	}

	/** The bucket stream's bytes per message. */
	@Override
	public double bytesPerRecord() throws IOException, JetStreamApiException {
		StreamState state = streamState();
		return (double) state.getByteCount() / state.getMsgCount();
	}

	/** The server's JetStream store directory per message of the bucket stream. */
	@Override
	public double diskBytesPerRecord() throws IOException, JetStreamApiException {
		try (Stream<Path> files = Files.walk(jetStreamDirectory())) {
			long bytes = files.filter(Files::isRegularFile).mapToLong(NatsKvScaledStore::size).sum();
			return (double) bytes / streamState().getMsgCount();
		}
	}

	@Override
	public double restartSeconds(String storedKey) throws Exception {
		this.connection.close();
		this.server.stop();
		long start = System.nanoTime();
		this.server.start();
		Connection reconnected = connect();
		awaitReadable(reconnected, NatsKvFiller.bucketKey(storedKey), start);
		double seconds = (System.nanoTime() - start) / 1e9;
		open(reconnected);
		this.filler = NatsKvFiller.of(reconnected, BUCKET.name());
		return seconds;
	}

	/** Reads the key until the restarted server answers with it; JetStream is recovering until then. */
	private static void awaitReadable(Connection connection, String bucketKey, long startNanos)
			throws InterruptedException {
		while (System.nanoTime() - startNanos < RESTART_TIMEOUT.toNanos()) {
			try {
				if (connection.keyValue(BUCKET.name()).get(bucketKey) != null) {
					return;
				}
			}
			catch (IOException | JetStreamApiException ex) {
				// not recovered yet
			}
			Thread.sleep(10);
		}
		throw new IllegalStateException("Key " + bucketKey + " was not readable within " + RESTART_TIMEOUT
				+ " of the restart");
	}

	private StreamState streamState() throws IOException, JetStreamApiException {
		return this.connection.jetStreamManagement().getStreamInfo("KV_" + BUCKET.name()).getStreamState();
	}

	private Path jetStreamDirectory() {
		return this.server.directory().resolve("jetstream");
	}

	private static long size(Path file) {
		try {
			return Files.size(file);
		}
		catch (IOException ex) {
			return 0; // a file the server removed meanwhile
		}
	}

	@Override
	public void close() throws InterruptedException {
		this.connection.close();
		this.server.close();
	}

}

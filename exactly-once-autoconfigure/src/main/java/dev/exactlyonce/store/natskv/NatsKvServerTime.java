package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.function.Supplier;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;

import dev.exactlyonce.store.ServerTimeProbe;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Reads the time of the server that stores a NATS KV bucket, on every server version (2.9 has no
 * time in any API answer): a put of one probe key, whose entry the bucket stream's leader stamps
 * when it stores it. Every instance puts the same key, which the bucket keeps one revision of, so
 * probes never accumulate; the key contains a {@code .}, which no encoded idempotency key does, and
 * readers of records skip it ({@link #isProbe}).
 */
public final class NatsKvServerTime implements ServerTimeProbe {

	/** The probe's key. */
	static final String KEY = "exactlyonce.clock-probe";

	private static final byte[] VALUE = "server time probe".getBytes(StandardCharsets.US_ASCII);

	private final KeyValue bucket;

	/**
	 * Creates the probe.
	 * @param bucket the bucket to probe (the idempotency bucket, or the waits bucket)
	 */
	public NatsKvServerTime(KeyValue bucket) {
		this.bucket = bucket;
	}

	@Override
	public Supplier<Instant> send() {
		long revision = call(() -> this.bucket.put(KEY, VALUE));
		return () -> {
			KeyValueEntry entry = call(() -> this.bucket.get(KEY, revision));
			return (entry != null) ? entry.getCreated().toInstant() : null;
		};
	}

	/**
	 * Whether a bucket entry is the probe rather than a record.
	 * @param entry an entry of the bucket
	 * @return {@code true} for the probe
	 */
	static boolean isProbe(KeyValueEntry entry) {
		return KEY.equals(entry.getKey());
	}

	private <T> T call(BucketCall<T> call) {
		try {
			return call.run();
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			throw new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName()
					+ "' server time probe failed: " + ex.getMessage(), ex);
		}
	}

	/** A bucket request. */
	@FunctionalInterface
	private interface BucketCall<T> {

		T run() throws IOException, JetStreamApiException;

	}

}

package dev.exactlyonce.nats;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.KeyValueOptions;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.listener.CompletionParking;
import dev.exactlyonce.store.StoreKeyEncoder;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Parks completions in a NATS KV bucket of the starter's own, one entry per key (history 1, entries
 * expire with the bucket's TTL), as JSON.
 */
public final class NatsKvCompletionParking implements CompletionParking {

	private static final Log logger = LogFactory.getLog(NatsKvCompletionParking.class);

	private static final int MAX_KEY_LENGTH = 512;

	private final KeyValue bucket;

	private final StoreKeyEncoder keys = new StoreKeyEncoder(MAX_KEY_LENGTH);

	private final JsonMapper mapper = JsonMapper.builder().build();

	private final KeyValueManagement management;

	/**
	 * Parks completions in a bucket, telling a deleted bucket (nothing parked) from NATS not answering.
	 * @param bucket the bucket, on the listeners' connection
	 * @param management the bucket management of that connection
	 */
	public NatsKvCompletionParking(KeyValue bucket, KeyValueManagement management) {
		this.bucket = bucket;
		this.management = management;
	}

	/**
	 * Opens the bucket, creating it when missing and allowed to (file storage, one revision per key,
	 * entries kept for {@code ttl}, closed to roll-ups and purges: {@link KvBucketLock}); an existing
	 * bucket open to them is closed when allowed to, refused otherwise.
	 * @param connection the listeners' connection
	 * @param name the bucket
	 * @param ttl how long a parked completion is kept ({@code exactlyonce.store.completed-ttl})
	 * @param requestTimeout how long one bucket operation may take
	 * @param create whether a missing bucket is created and an open one closed
	 * @return the parking
	 * @throws dev.exactlyonce.config.ExactlyOnceConfigurationException when the bucket is missing and may not be created, or
	 * open to roll-ups or purges and may not or could not be closed
	 * @throws IllegalStateException when the server refused or did not answer (the cause says why)
	 */
	public static NatsKvCompletionParking open(Connection connection, String name, Duration ttl,
			Duration requestTimeout, boolean create) {
		KeyValue bucket = LockedKvBucket.open(connection, new LockedKvBucket.Spec(name,
				"exactlyonce.listener.parking-bucket",
				"exactly-once completions parked while the idempotency store was unavailable", ttl, requestTimeout,
				create, ", or set exactlyonce.listener.completion-parking=false (a completion the store could not "
						+ "take is then lost with the process)."));
		try {
			return new NatsKvCompletionParking(bucket, connection.keyValueManagement(
					KeyValueOptions.builder().jsRequestTimeout(requestTimeout).build()));
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read the completion parking bucket '" + name
					+ "' (exactlyonce.listener.parking-bucket): " + ex.getMessage(), ex);
		}
	}

	@Override
	public boolean park(String storeKey, Parked parked) {
		try {
			this.bucket.put(this.keys.encode(storeKey), this.mapper.writeValueAsBytes(parked));
			return true;
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			throw new StoreUnavailableException("Completion of key '" + storeKey + "' not parked in bucket '"
					+ this.bucket.getBucketName() + "': " + ex.getMessage(), ex);
		}
	}

	@Override
	public Optional<Parked> find(String storeKey) {
		KeyValueEntry entry;
		try {
			entry = this.bucket.get(this.keys.encode(storeKey));
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == LockedKvBucket.BUCKET_NOT_FOUND) {
				// the bucket was deleted: whatever was parked in it is gone
				return Optional.empty();
			}
			throw new StoreUnavailableException("Parked completion of key '" + storeKey + "' not read from bucket '"
					+ this.bucket.getBucketName() + "': " + ex.getMessage(), ex);
		}
		catch (IOException | RuntimeException ex) {
			if (bucketGone()) {
				return Optional.empty();
			}
			throw new StoreUnavailableException("Parked completion of key '" + storeKey + "' not read from bucket '"
					+ this.bucket.getBucketName() + "': " + ex.getMessage(), ex);
		}
		if (entry == null || entry.getOperation() != KeyValueOperation.PUT || entry.getValue() == null) {
			return Optional.empty();
		}
		try {
			return Optional.of(this.mapper.readValue(entry.getValue(), Parked.class));
		}
		catch (JacksonException ex) {
			logger.warn("Parked completion of key '" + storeKey + "' in bucket '" + this.bucket.getBucketName()
					+ "' is not readable and is ignored: " + ex.getOriginalMessage());
			return Optional.empty();
		}
	}

	/**
	 * Whether the bucket was deleted: a read of a deleted bucket's key gets no answer at all (a direct
	 * get to a stream that is gone), which looks like NATS not answering.
	 */
	private boolean bucketGone() {
		try {
			this.management.getStatus(this.bucket.getBucketName());
			return false;
		}
		catch (JetStreamApiException ex) {
			return ex.getApiErrorCode() == LockedKvBucket.BUCKET_NOT_FOUND;
		}
		catch (IOException | RuntimeException ex) {
			return false;
		}
	}

	@Override
	public void remove(String storeKey) {
		try {
			this.bucket.delete(this.keys.encode(storeKey));
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			logger.debug("Parked completion of key '" + storeKey + "' not removed (it expires with the bucket's "
					+ "TTL): " + ex.getMessage());
		}
	}

}

package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatchOption;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.impl.NatsKeyValueWatchSubscription;

import dev.exactlyonce.store.ClaimDecision;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.CompareAndSetIdempotencyStore;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.StoreKeyEncoder;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * An {@link IdempotencyStore} in a NATS JetStream key-value bucket. Claims use {@code create}
 * (fails when the key exists) and every later write is an {@code update} against the revision
 * read, so each transition is a compare-and-set. The lease expiry lives in the value: nats-server
 * 2.9 has no per-key TTL. The bucket's TTL forgets records after {@code completed-ttl}.
 */
public class NatsKvIdempotencyStore extends CompareAndSetIdempotencyStore implements RecordScanner {

	/** "wrong last sequence" / "key exists": someone wrote between our read and our write. */
	private static final int WRONG_LAST_SEQUENCE = 10071;

	/** What replicated buckets may answer instead of 10071. */
	private static final int KEY_EXISTS_REPLICATED = 10164;

	private static final int MAX_CAS_ROUNDS = 16;

	private static final int MAX_KEY_LENGTH = 512;

	private static final long SCAN_TIMEOUT_SECONDS = 60;

	private final KeyValue bucket;

	private final RecordCodec codec = new RecordCodec();

	private final StoreKeyEncoder keyEncoder = new StoreKeyEncoder(MAX_KEY_LENGTH);

	/**
	 * Creates the store on an existing bucket.
	 * @param bucket the bucket (see {@link NatsKvBucketProvisioner})
	 * @param rules the claim rules
	 */
	public NatsKvIdempotencyStore(KeyValue bucket, ClaimRules rules) {
		super(rules);
		this.bucket = bucket;
	}

	@Override
	public ClaimResult tryClaim(String key, String owner, Duration lease) {
		String storeKey = this.keyEncoder.encode(key);
		for (int round = 0; round < MAX_CAS_ROUNDS; round++) {
			KeyValueEntry entry = read(storeKey);
			IdempotencyRecord current = decode(entry);
			ClaimDecision decision = this.rules.claim(current, key, owner, lease);
			if (!decision.requiresWrite() || write(storeKey, entry, decision.toWrite())) {
				return decision.result();
			}
		}
		throw new StoreUnavailableException("Claim on key '" + key + "' kept losing compare-and-set races", null);
	}

	@Override
	public String name() {
		return "nats-kv";
	}

	/**
	 * Reads the latest value of every key with one watch over the bucket (no per-key requests).
	 */
	@Override
	public void scan(Consumer<IdempotencyRecord> action) {
		List<KeyValueEntry> entries = new ArrayList<>();
		CountDownLatch endOfData = new CountDownLatch(1);
		KeyValueWatcher watcher = new KeyValueWatcher() {

			@Override
			public void watch(KeyValueEntry entry) {
				synchronized (entries) {
					entries.add(entry);
				}
			}

			@Override
			public void endOfData() {
				endOfData.countDown();
			}

		};
		NatsKeyValueWatchSubscription subscription = null;
		try {
			subscription = this.bucket.watchAll(watcher, KeyValueWatchOption.IGNORE_DELETE);
			if (!endOfData.await(SCAN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				throw new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName()
						+ "' scan did not finish within " + SCAN_TIMEOUT_SECONDS + "s", null);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw unavailable("scan", ex);
		}
		catch (IOException | JetStreamApiException ex) {
			throw unavailable("scan", ex);
		}
		finally {
			if (subscription != null) {
				subscription.unsubscribe();
			}
		}
		List<KeyValueEntry> snapshot;
		synchronized (entries) {
			snapshot = List.copyOf(entries);
		}
		snapshot.stream()
			.filter((entry) -> entry.getOperation() == KeyValueOperation.PUT)
			.map(this::decode)
			.filter((record) -> !this.rules.isExpired(record, this.rules.now()))
			.forEach(action);
	}

	@Override
	protected IdempotencyRecord readRecord(String key) {
		return decode(read(this.keyEncoder.encode(key)));
	}

	@Override
	protected IdempotencyRecord transition(String key, UnaryOperator<IdempotencyRecord> change) {
		String storeKey = this.keyEncoder.encode(key);
		for (int round = 0; round < MAX_CAS_ROUNDS; round++) {
			KeyValueEntry entry = read(storeKey);
			IdempotencyRecord next = change.apply(decode(entry));
			if (write(storeKey, entry, next)) {
				return next;
			}
		}
		throw new StoreUnavailableException("Update of key '" + key + "' kept losing compare-and-set races", null);
	}

	private KeyValueEntry read(String storeKey) {
		try {
			KeyValueEntry entry = this.bucket.get(storeKey);
			return (entry != null && entry.getOperation() == KeyValueOperation.PUT) ? entry : null;
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			throw unavailable("read", ex);
		}
	}

	private IdempotencyRecord decode(KeyValueEntry entry) {
		return (entry != null) ? this.codec.decode(entry.getValue()) : null;
	}

	/** Writes {@code next} if the key still holds {@code read}; false when someone wrote first. */
	private boolean write(String storeKey, KeyValueEntry read, IdempotencyRecord next) {
		try {
			byte[] value = this.codec.encode(next);
			if (read == null) {
				this.bucket.create(storeKey, value);
			}
			else {
				this.bucket.update(storeKey, value, read.getRevision());
			}
			return true;
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == WRONG_LAST_SEQUENCE || ex.getApiErrorCode() == KEY_EXISTS_REPLICATED) {
				return false;
			}
			throw unavailable("write", ex);
		}
		catch (IOException | RuntimeException ex) {
			throw unavailable("write", ex);
		}
	}

	private StoreUnavailableException unavailable(String operation, Exception ex) {
		return new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName() + "' " + operation
				+ " failed: " + ex.getMessage(), ex);
	}

}

package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatchOption;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.impl.NatsKeyValueWatchSubscription;

import dev.exactlyonce.store.SealedJournal;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * The sealed parts of step journals ({@link SealedJournal}) in the records' own bucket, under keys
 * that extend the record's key with a dot. All parts of one record are read with one watch over
 * their prefix: one request however many parts a long task has.
 */
final class NatsKvJournalValues implements SealedJournal.JournalValues {

	/** How long reading a record's parts may take, stalls included. */
	private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

	private final KeyValue bucket;

	NatsKvJournalValues(KeyValue bucket) {
		this.bucket = bucket;
	}

	@Override
	public void put(String key, byte[] value) {
		try {
			this.bucket.put(key, value);
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			throw unavailable("write of step journal part '" + key + "'", ex);
		}
	}

	/**
	 * Writes every part under a prefix again, unchanged, so the bucket's TTL counts from now: a task
	 * suspended at a durable wait keeps its record for the wait and needs its parts that long too,
	 * also when they were sealed before an earlier wait of the same run.
	 * @param prefix the parts' prefix ({@link SealedJournal#prefix} of the record's key)
	 */
	void renew(String prefix) {
		readAll(prefix).forEach(this::put);
	}

	/**
	 * Every value under the prefix. The parts a record names were written before the record, so
	 * they are all there when the watch starts; it ends when the server says nothing is pending.
	 */
	@Override
	public Map<String, byte[]> readAll(String prefix) {
		Map<String, byte[]> values = new ConcurrentHashMap<>();
		CountDownLatch ended = new CountDownLatch(1);
		KeyValueWatcher watcher = new KeyValueWatcher() {

			@Override
			public void watch(KeyValueEntry entry) {
				if (entry.getOperation() == KeyValueOperation.PUT) {
					values.put(entry.getKey(), entry.getValue());
				}
			}

			@Override
			public void endOfData() {
				ended.countDown();
			}

		};
		NatsKeyValueWatchSubscription subscription = null;
		try {
			subscription = this.bucket.watch(prefix + ">", watcher, KeyValueWatchOption.IGNORE_DELETE);
			if (!ended.await(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName() + "' did not hand "
						+ "the step journal parts under '" + prefix + "' within " + READ_TIMEOUT.toSeconds() + "s", null);
			}
			return Map.copyOf(values);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw unavailable("read of step journal parts under '" + prefix + "'", ex);
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			if (ex instanceof StoreUnavailableException unavailable) {
				throw unavailable;
			}
			throw unavailable("read of step journal parts under '" + prefix + "'", ex);
		}
		finally {
			if (subscription != null) {
				subscription.unsubscribe();
			}
		}
	}

	private StoreUnavailableException unavailable(String operation, Exception ex) {
		return new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName() + "' " + operation
				+ " failed: " + ex.getMessage(), ex);
	}

}

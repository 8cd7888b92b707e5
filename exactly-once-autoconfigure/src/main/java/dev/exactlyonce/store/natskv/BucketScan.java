package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueStatus;
import io.nats.client.api.KeyValueWatchOption;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.impl.NatsKeyValueWatchSubscription;

import dev.exactlyonce.store.StoreUnavailableException;

/**
 * One pass over the latest value of every key of a bucket, handing each entry to an action as it
 * arrives instead of collecting the bucket first, so memory does not grow with the bucket. The
 * action runs on the watch's dispatcher thread, one entry at a time: while it is busy the
 * subscription's flow control holds the server back.
 * <p>
 * A bucket that keeps one revision per key (as provisioned) is read from its stream's first
 * message on: each message it holds is a key's latest, and the server starts such a watch at once
 * (a last-per-subject watch over 10,000,000 keys kept it busy longer than jnats waits for the
 * first heartbeat). A key rewritten during the pass loses its old message, maybe before the pass
 * reaches it, so the pass ends only once it has received the bucket's last revision as the bucket
 * reports it then, handing later values on (some keys twice). A bucket written faster than the
 * pass reads cannot keep it going: once the pass has caught up with the bucket as it was at the
 * start, it goes on for at most as long again as that took (at least a second). It fails when no
 * entry arrived for the stall timeout (not when the whole bucket takes longer), or with the first
 * exception or error of the action; either way no entry reaches the action after {@link #run}
 * returned.
 */
final class BucketScan {

	private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private static final long LEAST_CATCH_UP_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final KeyValue bucket;

	private final Duration stallTimeout;

	private final Object handing = new Object();

	private final CountDownLatch failed = new CountDownLatch(1);

	private volatile long lastProgress;

	private volatile long highestRevision;

	private volatile boolean endOfData;

	private volatile boolean closed;

	private Throwable failure;

	BucketScan(KeyValue bucket, Duration stallTimeout) {
		this.bucket = bucket;
		this.stallTimeout = stallTimeout;
	}

	/**
	 * Hands every latest entry that is not a delete marker to {@code action}.
	 * @param action what to do with each entry
	 * @throws IOException when the watch cannot be created or the bucket's status read
	 * @throws JetStreamApiException when the server refuses the watch or the status
	 * @throws InterruptedException when the calling thread is interrupted while waiting
	 * @throws StoreUnavailableException when the watch could not be set up or no entry arrived for
	 * the stall timeout
	 */
	void run(Consumer<KeyValueEntry> action) throws IOException, JetStreamApiException, InterruptedException {
		long startedAt = System.nanoTime();
		this.lastProgress = startedAt;
		KeyValueStatus status = this.bucket.getStatus();
		long lastAtStart = lastRevision(status);
		if (lastAtStart == 0) {
			return;
		}
		NatsKeyValueWatchSubscription subscription = null;
		try {
			subscription = watch(action, (status.getMaxHistoryPerKey() == 1)
					? new KeyValueWatchOption[] { KeyValueWatchOption.INCLUDE_HISTORY } : new KeyValueWatchOption[0]);
			awaitEnd(startedAt, lastAtStart);
		}
		finally {
			synchronized (this.handing) {
				this.closed = true;
			}
			if (subscription != null) {
				subscription.unsubscribe();
			}
		}
		synchronized (this.handing) {
			if (this.failure instanceof RuntimeException ex) {
				throw ex;
			}
			if (this.failure != null) {
				throw (Error) this.failure;
			}
		}
	}

	/** Creates the watch; jnats fails with an unchecked exception when the server was slow to set it up. */
	private NatsKeyValueWatchSubscription watch(Consumer<KeyValueEntry> action, KeyValueWatchOption[] options)
			throws IOException, JetStreamApiException, InterruptedException {
		try {
			return this.bucket.watchAll(watcher(action), options);
		}
		catch (RuntimeException ex) {
			throw new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName()
					+ "' scan could not set up its watch: " + ex, ex);
		}
	}

	/**
	 * Waits until the pass has received the bucket's last revision (read again each time it gets
	 * there), the action failed, the catch-up ran out of time, or nothing arrived for too long.
	 */
	private void awaitEnd(long startedAt, long lastAtStart)
			throws IOException, JetStreamApiException, InterruptedException {
		long target = lastAtStart;
		long caughtUpAt = 0;
		while (!this.failed.await(CHECK_NANOS, TimeUnit.NANOSECONDS)) {
			long now = System.nanoTime();
			if (this.highestRevision >= target || this.endOfData) {
				caughtUpAt = (caughtUpAt != 0) ? caughtUpAt : now;
				target = lastRevision(this.bucket.getStatus());
				if (this.highestRevision >= target) {
					return;
				}
			}
			if (caughtUpAt != 0 && now - caughtUpAt > Math.max(caughtUpAt - startedAt, LEAST_CATCH_UP_NANOS)) {
				return;
			}
			if (now - this.lastProgress > this.stallTimeout.toNanos()) {
				throw new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName()
						+ "' scan received nothing for " + this.stallTimeout.toSeconds() + "s", null);
			}
		}
	}

	private static long lastRevision(KeyValueStatus status) {
		return status.getBackingStreamInfo().getStreamState().getLastSequence();
	}

	private KeyValueWatcher watcher(Consumer<KeyValueEntry> action) {
		return new KeyValueWatcher() {

			@Override
			public void watch(KeyValueEntry entry) {
				synchronized (BucketScan.this.handing) {
					if (BucketScan.this.closed || BucketScan.this.failure != null) {
						return;
					}
					if (entry.getOperation() == KeyValueOperation.PUT) {
						try {
							action.accept(entry);
						}
						catch (RuntimeException | Error ex) {
							BucketScan.this.failure = ex;
							BucketScan.this.failed.countDown();
						}
					}
					BucketScan.this.lastProgress = System.nanoTime();
					BucketScan.this.highestRevision = Math.max(BucketScan.this.highestRevision, entry.getRevision());
				}
			}

			@Override
			public void endOfData() {
				BucketScan.this.endOfData = true;
			}

		};
	}

}

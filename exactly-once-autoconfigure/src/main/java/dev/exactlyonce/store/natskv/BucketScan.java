package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
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
 * reaches it, so the pass ends only once it has caught up with the bucket as it is then (see
 * {@link #awaitEnd}), handing later values on (some keys twice). A bucket written faster than the
 * pass reads fails it instead of keeping it going: catching up may take as long again as the pass
 * to the start's last revision (at least a second). It also fails when no entry arrived for the
 * stall timeout (not when the whole bucket takes longer), and ends with the first
 * exception or error of the action; either way no entry reaches the action after {@link #run}
 * returned.
 */
final class BucketScan {

	private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private static final long LEAST_CATCH_UP_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final int CATCH_UP_ROUNDS = 3;

	private final KeyValue bucket;

	private final Duration stallTimeout;

	private final Object handing = new Object();

	/** Released when the action failed or the pass reached its target revision. */
	private final Semaphore wakeUp = new Semaphore(0);

	private volatile long lastProgress;

	private volatile long highestRevision;

	private volatile long targetRevision;

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
	 * Waits until the pass has caught up with the bucket: received its last revision, read again
	 * each time the pass gets there, with no write in between, or caught up {@value #CATCH_UP_ROUNDS}
	 * times (so only a key rewritten each time just before the pass reached it can be missed). Ends
	 * early when the action failed; fails when catching up took longer than the pass to the start's
	 * last revision (at least a second) or nothing arrived for the stall timeout.
	 */
	private void awaitEnd(long startedAt, long lastAtStart)
			throws IOException, JetStreamApiException, InterruptedException {
		this.targetRevision = lastAtStart;
		long caughtUpAt = 0;
		int rounds = 0;
		while (true) {
			this.wakeUp.tryAcquire(CHECK_NANOS, TimeUnit.NANOSECONDS);
			this.wakeUp.drainPermits();
			if (hasFailed()) {
				return;
			}
			long now = System.nanoTime();
			if (this.highestRevision >= this.targetRevision) {
				caughtUpAt = (caughtUpAt != 0) ? caughtUpAt : now;
				this.targetRevision = lastRevision(this.bucket.getStatus());
				if (this.highestRevision >= this.targetRevision || ++rounds >= CATCH_UP_ROUNDS) {
					return;
				}
			}
			if (caughtUpAt != 0 && now - caughtUpAt > Math.max(caughtUpAt - startedAt, LEAST_CATCH_UP_NANOS)) {
				throw new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName()
						+ "' is written faster than its scan reads it: revision " + this.highestRevision + " read, "
						+ this.targetRevision + " written; records rewritten meanwhile may not have been read", null);
			}
			if (now - this.lastProgress > this.stallTimeout.toNanos()) {
				throw new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName()
						+ "' scan received nothing for " + this.stallTimeout.toSeconds() + "s", null);
			}
		}
	}

	private boolean hasFailed() {
		synchronized (this.handing) {
			return this.failure != null;
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
							BucketScan.this.wakeUp.release();
						}
					}
					BucketScan.this.lastProgress = System.nanoTime();
					BucketScan.this.highestRevision = Math.max(BucketScan.this.highestRevision, entry.getRevision());
					if (entry.getRevision() >= BucketScan.this.targetRevision) {
						BucketScan.this.wakeUp.release();
					}
				}
			}

			@Override
			public void endOfData() {
				// jnats says so when a message came with nothing pending as the server sent it, which may
				// be long before the action got to it: the pass decides on revisions instead
			}

		};
	}

}

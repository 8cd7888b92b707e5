package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueWatchOption;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.impl.NatsKeyValueWatchSubscription;

import dev.exactlyonce.store.StoreUnavailableException;

/**
 * One pass over the latest value of every key of a bucket, handing each entry to an action as it
 * arrives instead of collecting the bucket first, so memory does not grow with the bucket. The
 * action runs on the watch's dispatcher thread, one entry at a time: while it is busy the
 * subscription's flow control holds the server back. The pass covers the bucket as it was when
 * it started: it ends at the bucket's last revision then (writes after it are not handed on, so
 * no key is handed twice and a busy bucket cannot keep the pass going). It fails when no entry
 * arrived for the stall timeout (not when the whole bucket takes longer), or with the first
 * exception or error of the action; either way no entry reaches the action after {@link #run}
 * returned.
 */
final class BucketScan {

	private final KeyValue bucket;

	private final Duration stallTimeout;

	private final Object handing = new Object();

	private final CountDownLatch finished = new CountDownLatch(1);

	private volatile long lastProgress;

	private volatile boolean closed;

	private Throwable failure;

	private long lastRevision;

	BucketScan(KeyValue bucket, Duration stallTimeout) {
		this.bucket = bucket;
		this.stallTimeout = stallTimeout;
	}

	/**
	 * Hands every latest entry that is not a delete marker to {@code action}.
	 * @param action what to do with each entry
	 * @throws IOException when the watch cannot be created
	 * @throws JetStreamApiException when the server refuses the watch
	 * @throws InterruptedException when the calling thread is interrupted while waiting
	 * @throws StoreUnavailableException when no entry arrived for the stall timeout
	 */
	void run(Consumer<KeyValueEntry> action) throws IOException, JetStreamApiException, InterruptedException {
		this.lastProgress = System.nanoTime();
		this.lastRevision = this.bucket.getStatus().getBackingStreamInfo().getStreamState().getLastSequence();
		NatsKeyValueWatchSubscription subscription = null;
		try {
			subscription = this.bucket.watchAll(watcher(action), KeyValueWatchOption.IGNORE_DELETE);
			awaitEnd();
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

	private void awaitEnd() throws InterruptedException {
		long stallNanos = this.stallTimeout.toNanos();
		while (!this.finished.await(Math.min(stallNanos, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS)) {
			if (System.nanoTime() - this.lastProgress > stallNanos) {
				throw new StoreUnavailableException("NATS KV bucket '" + this.bucket.getBucketName()
						+ "' scan received nothing for " + this.stallTimeout.toSeconds() + "s", null);
			}
		}
	}

	private KeyValueWatcher watcher(Consumer<KeyValueEntry> action) {
		return new KeyValueWatcher() {

			@Override
			public void watch(KeyValueEntry entry) {
				synchronized (BucketScan.this.handing) {
					if (BucketScan.this.closed || BucketScan.this.failure != null) {
						return;
					}
					if (entry.getRevision() > BucketScan.this.lastRevision) {
						BucketScan.this.finished.countDown();
						return;
					}
					try {
						action.accept(entry);
					}
					catch (RuntimeException | Error ex) {
						BucketScan.this.failure = ex;
						BucketScan.this.finished.countDown();
					}
					BucketScan.this.lastProgress = System.nanoTime();
					if (entry.getRevision() == BucketScan.this.lastRevision) {
						BucketScan.this.finished.countDown();
					}
				}
			}

			@Override
			public void endOfData() {
				BucketScan.this.finished.countDown();
			}

		};
	}

}

package dev.exactlyonce.limits;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.store.StoreUnavailableException;

/**
 * The limits' usage, read from their bucket at most once per {@code maxAge} however often health, the
 * meters and the dashboard ask: a read scans every key of every limit. {@link #current()} reads when
 * the last read is too old (one caller reads, the others wait for it); {@link #last()} never waits: it
 * answers the last read and starts a new one on a thread of its own when that one is too old.
 */
final class UsageSnapshots {

	private static final Log logger = LogFactory.getLog(UsageSnapshots.class);

	private final Supplier<List<LimitUsage>> reader;

	private final long maxAgeNanos;

	private final AtomicBoolean reading = new AtomicBoolean();

	private final Lock readLock = new ReentrantLock();

	private volatile Snapshot last;

	UsageSnapshots(Supplier<List<LimitUsage>> reader, Duration maxAge) {
		this.reader = reader;
		this.maxAgeNanos = maxAge.toNanos();
	}

	/**
	 * The usage, read now when the last read is older than the max age.
	 * @throws StoreUnavailableException when that read failed
	 */
	List<LimitUsage> current() {
		Snapshot snapshot = this.last;
		if (fresh(snapshot)) {
			return snapshot.answer();
		}
		this.readLock.lock();
		try {
			snapshot = this.last;
			if (!fresh(snapshot)) {
				snapshot = read();
			}
		}
		finally {
			this.readLock.unlock();
		}
		return snapshot.answer();
	}

	/**
	 * The last usage read, without waiting; a read starts in the background when it is too old.
	 * @return the usage, or empty before the first read and when the last one failed
	 */
	Optional<List<LimitUsage>> last() {
		Snapshot snapshot = this.last;
		if (!fresh(snapshot) && this.reading.compareAndSet(false, true)) {
			Thread thread = new Thread(() -> {
				this.readLock.lock();
				try {
					if (!fresh(this.last)) {
						read();
					}
				}
				finally {
					this.readLock.unlock();
					this.reading.set(false);
				}
			}, "exactlyonce-limits-usage");
			thread.setDaemon(true);
			thread.start();
		}
		return Optional.ofNullable(snapshot).map(Snapshot::usage);
	}

	private boolean fresh(Snapshot snapshot) {
		return snapshot != null && System.nanoTime() - snapshot.readAtNanos() < this.maxAgeNanos;
	}

	private Snapshot read() {
		Snapshot snapshot;
		try {
			snapshot = new Snapshot(this.reader.get(), null, System.nanoTime());
		}
		catch (StoreUnavailableException ex) {
			logger.debug("The limits' usage was not read: " + ex.getMessage(), ex);
			snapshot = new Snapshot(null, ex, System.nanoTime());
		}
		this.last = snapshot;
		return snapshot;
	}

	/** A read: the usage, or why there is none, and when. */
	private record Snapshot(List<LimitUsage> usage, StoreUnavailableException failure, long readAtNanos) {

		List<LimitUsage> answer() {
			if (this.failure != null) {
				throw new StoreUnavailableException(this.failure.getMessage(), this.failure);
			}
			return this.usage;
		}

	}

}

package dev.exactlyonce.benchmark;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@link ChildrenBenchmarkApplication}'s listeners report, per parent: how often its handler
 * ran, when it first reached {@code awaitAll}, when its last child returned and when it ran past
 * {@code awaitAll}.
 */
final class ChildProbe {

	private static final Duration PATIENCE = Duration.ofMinutes(5);

	private final Map<String, Family> families = new ConcurrentHashMap<>();

	/** The figures of one parent and its children, created on first use. */
	Family family(String parentId) {
		return this.families.computeIfAbsent(parentId, (id) -> new Family());
	}

	/** One parent and its children. */
	static final class Family {

		private final AtomicInteger runs = new AtomicInteger();

		private final CountDownLatch waiting = new CountDownLatch(1);

		private final AtomicLong firstRun = new AtomicLong();

		private final AtomicLong reachedAwait = new AtomicLong();

		private final AtomicLong firstChildReturned = new AtomicLong();

		private final AtomicLong lastChildReturned = new AtomicLong(Long.MIN_VALUE);

		private final AtomicInteger childrenReturned = new AtomicInteger();

		private final AtomicLong resumed = new AtomicLong();

		/** The parent's handler started (its first run or a resumption). */
		void ran() {
			this.firstRun.compareAndSet(0, System.nanoTime());
			this.runs.incrementAndGet();
		}

		/** The parent started its children and is about to call {@code awaitAll}. */
		void awaiting() {
			this.reachedAwait.compareAndSet(0, System.nanoTime());
			this.waiting.countDown();
		}

		/** Holds a child until its parent reached {@code awaitAll}, so that it finishes after the parent waits. */
		void awaitParentWaiting() throws InterruptedException {
			if (!this.waiting.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
				throw new IllegalStateException("the parent did not reach awaitAll within " + PATIENCE);
			}
		}

		/** A child's handler is returning its result. */
		void childReturning() {
			long now = System.nanoTime();
			this.firstChildReturned.compareAndSet(0, now);
			this.lastChildReturned.accumulateAndGet(now, Math::max);
			this.childrenReturned.incrementAndGet();
		}

		/** The parent ran past {@code awaitAll} with every child's result. */
		void resumed() {
			this.resumed.compareAndSet(0, System.nanoTime());
		}

		boolean done() {
			return this.resumed.get() != 0;
		}

		/** How many times the parent's handler ran after its first run. */
		int resumptions() {
			return this.runs.get() - 1;
		}

		/** From the last child's handler returning to the parent running past {@code awaitAll}. */
		long lastChildToResumedNanos() {
			return this.resumed.get() - this.lastChildReturned.get();
		}

		/** Children returned per second, from the first child's return to the last one's (0 for one child). */
		double childrenPerSecond() {
			long span = this.lastChildReturned.get() - this.firstChildReturned.get();
			return (span > 0) ? (this.childrenReturned.get() - 1) / (span / 1e9) : 0;
		}

		/** From the parent's first run to its reaching {@code awaitAll} (the children started). */
		long fanOutNanos() {
			return this.reachedAwait.get() - this.firstRun.get();
		}

		/** When the parent ran past {@code awaitAll} ({@link System#nanoTime()}). */
		long resumedAt() {
			return this.resumed.get();
		}

	}

}

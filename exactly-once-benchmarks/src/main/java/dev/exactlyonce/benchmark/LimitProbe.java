package dev.exactlyonce.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the listeners of {@link LimitsBenchmarkApplication} report: the step times, the tasks running
 * at once under the concurrency limit (and the most seen) and when each ended, and when each rated task
 * started.
 */
final class LimitProbe {

	private volatile LatencyRecorder plain = new LatencyRecorder(0);

	private volatile LatencyRecorder limited = new LatencyRecorder(0);

	private final AtomicInteger stepped = new AtomicInteger();

	private final AtomicInteger running = new AtomicInteger();

	private final AtomicInteger mostRunning = new AtomicInteger();

	private final AtomicInteger keyedDone = new AtomicInteger();

	private final List<Long> ratedStarts = new ArrayList<>();

	private final List<Long> keyedEnds = new ArrayList<>();

	/** Starts recording step times afresh, up to {@code capacity} of each kind. */
	void recordSteps(int capacity) {
		this.plain = new LatencyRecorder(capacity);
		this.limited = new LatencyRecorder(capacity);
	}

	void stepped(boolean underLimit, long nanos) {
		(underLimit ? this.limited : this.plain).recordNanos(nanos);
		this.stepped.incrementAndGet();
	}

	void entered() {
		this.mostRunning.accumulateAndGet(this.running.incrementAndGet(), Math::max);
	}

	synchronized void left() {
		this.running.decrementAndGet();
		this.keyedEnds.add(System.nanoTime());
		this.keyedDone.incrementAndGet();
	}

	synchronized void rated() {
		this.ratedStarts.add(System.nanoTime());
	}

	LatencyRecorder steps(boolean underLimit) {
		return underLimit ? this.limited : this.plain;
	}

	int steppedCount() {
		return this.stepped.get();
	}

	int keyedDoneCount() {
		return this.keyedDone.get();
	}

	int mostRunning() {
		return this.mostRunning.get();
	}

	/** When each task under the concurrency limit ended ({@code System.nanoTime()}), in order. */
	synchronized List<Long> keyedEnds() {
		return List.copyOf(this.keyedEnds);
	}

	synchronized int ratedCount() {
		return this.ratedStarts.size();
	}

	synchronized List<Long> ratedStarts() {
		return List.copyOf(this.ratedStarts);
	}

}

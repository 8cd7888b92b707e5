package dev.exactlyonce.benchmark;

import java.util.Arrays;

/**
 * Collects the latencies of one operation and answers percentiles (nearest rank).
 */
final class LatencyRecorder {

	private final long[] nanos;

	private int count;

	LatencyRecorder(int capacity) {
		this.nanos = new long[capacity];
	}

	void record(long startNanos) {
		recordNanos(System.nanoTime() - startNanos);
	}

	synchronized void recordNanos(long elapsedNanos) {
		if (this.count < this.nanos.length) {
			this.nanos[this.count++] = elapsedNanos;
		}
	}

	/**
	 * The latency below which {@code percentile} percent of the recorded operations fall.
	 * @param percentile e.g. 50 or 99
	 * @return the latency in milliseconds
	 */
	synchronized double percentileMillis(double percentile) {
		if (this.count == 0) {
			return Double.NaN;
		}
		long[] sorted = Arrays.copyOf(this.nanos, this.count);
		Arrays.sort(sorted);
		int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
		return sorted[Math.max(rank - 1, 0)] / 1_000_000.0;
	}

	/**
	 * The mean of the recorded latencies.
	 * @return milliseconds
	 */
	synchronized double meanMillis() {
		return Arrays.stream(this.nanos, 0, this.count).average().orElse(Double.NaN) / 1_000_000.0;
	}

	int count() {
		return this.count;
	}

}

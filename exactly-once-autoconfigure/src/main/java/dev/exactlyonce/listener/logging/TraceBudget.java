package dev.exactlyonce.listener.logging;

import java.time.Duration;

/**
 * At most a number of stack traces per interval: what keeps a flood of failures from filling the
 * disk with traces while every failure still gets its one-line log.
 */
final class TraceBudget {

	private final int traces;

	private final long intervalNanos;

	private long windowStart = System.nanoTime();

	private int taken;

	TraceBudget(int traces, Duration interval) {
		this.traces = traces;
		this.intervalNanos = interval.toNanos();
	}

	/** Takes one trace from the budget; false when the interval's traces are spent. */
	synchronized boolean take() {
		long now = System.nanoTime();
		if (now - this.windowStart >= this.intervalNanos) {
			this.windowStart = now;
			this.taken = 0;
		}
		if (this.taken >= this.traces) {
			return false;
		}
		this.taken++;
		return true;
	}

	/** The budget, for a line whose trace was left out. */
	String describe() {
		return "at most " + this.traces + " stack traces per " + Duration.ofNanos(this.intervalNanos).toSeconds() + " s";
	}

}

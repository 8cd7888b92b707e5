package dev.exactlyonce.steps;

import java.time.Duration;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Journals the steps' DONE entries held longer than {@code exactlyonce.steps.done-delay}: one sweep
 * for every delivery, at a fixed rate of half the delay on the listeners' timer, so that holding an
 * entry costs a queue insert and no thread wake-up (a timer per entry would wake the timer's thread
 * twice per step). An entry is journaled alone one to one and a half delays after it was held (a
 * delay later again when the handler held the lock at that moment); after failed attempts, at
 * growing intervals.
 */
final class HeldDoneSweep {

	private final long delayNanos;

	/** The longest wait between two attempts of a journal whose attempts fail (the store is down). */
	static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);

	/** Journals in the order they held entries; every deadline is its hold plus the same delay. */
	private final Queue<Due> due = new ConcurrentLinkedQueue<>();

	/** Journals whose last attempt failed, each with its own deadline: looked at whole every sweep. */
	private final Queue<Due> retries = new ConcurrentLinkedQueue<>();

	HeldDoneSweep(Duration delay) {
		this.delayNanos = delay.toNanos();
	}

	/**
	 * Starts the sweep on the listeners' timer; until then held entries wait for the next write.
	 * @param timer the timer, shut down with the listeners
	 */
	void start(ScheduledExecutorService timer) {
		long period = Math.max(TimeUnit.MILLISECONDS.toNanos(1), this.delayNanos / 2);
		timer.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.NANOSECONDS);
	}

	/** Makes the sweep look at a journal's held entries once the delay has passed. */
	void hold(CoalescedJournal journal) {
		this.due.offer(new Due(journal, System.nanoTime() + this.delayNanos));
	}

	/**
	 * Makes the sweep look again at a journal whose attempts failed, after the delay doubled for
	 * each failure, at most {@link #MAX_RETRY_NANOS}: an unreachable store is not asked a hundred
	 * times a second per task.
	 * @param failures the attempts that failed in a row, from 1
	 */
	void retry(CoalescedJournal journal, int failures) {
		long wait = (failures >= 30) ? MAX_RETRY_NANOS : Math.min(MAX_RETRY_NANOS, this.delayNanos << failures);
		this.retries.offer(new Due(journal, System.nanoTime() + wait));
	}

	/** One sweep: every journal whose deadline passed makes its attempt (which never throws). */
	private void sweep() {
		long now = System.nanoTime();
		for (Due head = this.due.peek(); head != null && now - head.deadline() >= 0; head = this.due.peek()) {
			this.due.poll();
			head.journal().expire();
		}
		for (Iterator<Due> retrying = this.retries.iterator(); retrying.hasNext();) {
			Due retry = retrying.next();
			if (now - retry.deadline() >= 0) {
				retrying.remove();
				retry.journal().expire();
			}
		}
	}

	private record Due(CoalescedJournal journal, long deadline) {
	}

}

package dev.exactlyonce.benchmark;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The tasks of one measured run of {@link PeersBenchmark}: when each was handed over, its
 * hand-over to end latency, and a window that keeps at most {@code window} tasks handed over and
 * not yet finished (the closed loop), with the time the handing-over threads spent waiting for
 * room in it and in the hand-over calls themselves.
 */
final class TaskCompletions {

	private final Map<String, Long> handedOver = new ConcurrentHashMap<>();

	private final LatencyRecorder latency;

	private final CountDownLatch finished;

	private final Semaphore window;

	private final LongAdder waitingNanos = new LongAdder();

	private final LongAdder handOverNanos = new LongAdder();

	TaskCompletions(int tasks, int window) {
		this.latency = new LatencyRecorder(tasks);
		this.finished = new CountDownLatch(tasks);
		this.window = new Semaphore(window);
	}

	/**
	 * Waits for room in the window and marks the task handed over now.
	 * @param taskId the task about to be handed over
	 * @throws InterruptedException when interrupted while waiting
	 */
	void handingOver(String taskId) throws InterruptedException {
		long waiting = System.nanoTime();
		this.window.acquire();
		long now = System.nanoTime();
		this.waitingNanos.add(now - waiting);
		this.handedOver.put(taskId, now);
	}

	/**
	 * Counts the time of one hand-over call.
	 * @param nanos how long it took
	 */
	void handedOver(long nanos) {
		this.handOverNanos.add(nanos);
	}

	/**
	 * Records a task's end; a task of another run, or one seen already, is ignored.
	 * @param taskId the task
	 */
	void finished(String taskId) {
		Long start = this.handedOver.remove(taskId);
		if (start != null) {
			this.latency.record(start);
			this.window.release();
			this.finished.countDown();
		}
	}

	/**
	 * Waits until every task of the run has finished.
	 * @param minutes at most this long
	 * @return whether all finished in time
	 * @throws InterruptedException when interrupted
	 */
	boolean await(int minutes) throws InterruptedException {
		return this.finished.await(minutes, TimeUnit.MINUTES);
	}

	/**
	 * The time all handing-over threads together spent waiting for room in the window.
	 * @return nanoseconds
	 */
	long waitingNanos() {
		return this.waitingNanos.sum();
	}

	/**
	 * The time all hand-over calls together took.
	 * @return nanoseconds
	 */
	long handOverNanos() {
		return this.handOverNanos.sum();
	}

	LatencyRecorder latency() {
		return this.latency;
	}

}

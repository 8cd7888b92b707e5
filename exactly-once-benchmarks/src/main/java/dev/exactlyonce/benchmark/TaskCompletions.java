package dev.exactlyonce.benchmark;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The tasks of one measured run of {@link PeersBenchmark}: when each was handed over, its
 * hand-over to end latency, and a window that keeps at most {@code window} tasks handed over and
 * not yet finished (the closed loop).
 */
final class TaskCompletions {

	private final Map<String, Long> handedOver = new ConcurrentHashMap<>();

	private final LatencyRecorder latency;

	private final CountDownLatch finished;

	private final Semaphore window;

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
		this.window.acquire();
		this.handedOver.put(taskId, System.nanoTime());
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

	LatencyRecorder latency() {
		return this.latency;
	}

}

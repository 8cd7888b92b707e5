package dev.exactlyonce.benchmark;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Signal to resume of one system: {@value #WAITERS} tasks that await {@link PeerTask#SIGNAL}
 * (DBOS: {@code recv}; the starter: {@code awaitSignal}, the task suspended), then a signal to each
 * in turn (DBOS: {@code send}; the starter: {@code ExactlyOnceSignals.signal}), the next sent once
 * the last task ran past its wait: from just before the signal to the line after the wait.
 */
final class SignalResume {

	static final int WAITERS = 50;

	private SignalResume() {
	}

	/**
	 * Measures one system.
	 * @param system the system
	 * @return the table line
	 * @throws Exception when a task does not wait or resume
	 */
	static String measure(PeerSystem system) throws Exception {
		AtomicReference<TaskCompletions> completions = new AtomicReference<>();
		TaskCompletions signals = new TaskCompletions(WAITERS, 1);
		completions.set(signals);
		int before = PeerTask.arrivedAtWait();
		String run = system.label().replaceAll("[^a-z0-9]+", "");
		try (PeerSystem.Workers workers = system.start("signals", 64, 0, completions)) {
			for (int i = 0; i < WAITERS; i++) {
				workers.handOver(PeerTask.waitingTask(run, i));
			}
			long deadline = System.nanoTime() + 120_000_000_000L;
			while (PeerTask.arrivedAtWait() < before + WAITERS) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException(system.label() + ": the waiting tasks did not reach their wait in 2 minutes");
				}
				Thread.sleep(10);
			}
			// reaching the wait is not being suspended at it (the starter writes WAITING and acks after): let them settle
			Thread.sleep(2000);
			for (int i = 0; i < WAITERS; i++) {
				String taskId = PeerTask.waitingTask(run, i);
				signals.handingOver(taskId);
				workers.signal(taskId);
			}
			if (!signals.await(2)) {
				throw new IllegalStateException(system.label() + ": not every signalled task resumed within 2 minutes");
			}
			return String.format(Locale.ROOT, "| %s | %d | %.1f | %.1f |", system.label(), WAITERS,
					signals.latency().percentileMillis(50), signals.latency().percentileMillis(99));
		}
	}

}

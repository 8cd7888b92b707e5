package dev.exactlyonce.benchmark;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The task both systems run in {@link PeersBenchmark}: three checkpointed steps, each doing
 * {@code workMillis} of work and returning about 180 bytes, then the task reports its end to the
 * run's {@link TaskCompletions}. The steps themselves are the system's own ({@code context.step} or
 * {@code dbos.runStep}); this class holds what they run.
 */
final class PeerTask {

	/** The steps of one task. */
	static final int STEPS = 3;

	/** The signal a waiting task awaits. */
	static final String SIGNAL = "go";

	private static final String FILLER = "x".repeat(160);

	private static final String WAITING_PREFIX = "wait-";

	private static final Set<String> ARRIVED = ConcurrentHashMap.newKeySet();

	private PeerTask() {
	}

	/**
	 * One step's action: the work, then its result.
	 * @param taskId the task
	 * @param step 1 to {@link #STEPS}
	 * @param workMillis the work, slept
	 * @return about 180 bytes naming the task and the step
	 */
	static String step(String taskId, int step, int workMillis) {
		CrashResumeWorker.stepStarting(taskId, step);
		BenchmarkWork.perform(workMillis);
		return step + ":" + taskId + ":" + FILLER;
	}

	/**
	 * The id of a task that awaits {@link #SIGNAL} instead of running steps.
	 * @param run the run it belongs to
	 * @param number its number in the run
	 * @return the id
	 */
	static String waitingTask(String run, int number) {
		return WAITING_PREFIX + run + "-" + number;
	}

	/**
	 * Whether a task awaits {@link #SIGNAL} instead of running steps; if so, marks it arrived at its wait.
	 * @param taskId the task
	 * @return whether it waits
	 */
	static boolean arrivesAtWait(String taskId) {
		if (!taskId.startsWith(WAITING_PREFIX)) {
			return false;
		}
		ARRIVED.add(taskId);
		return true;
	}

	/**
	 * The waiting tasks that reached their wait at least once.
	 * @return how many
	 */
	static int arrivedAtWait() {
		return ARRIVED.size();
	}

	/**
	 * Reports the end of a task (its last step's result checkpointed, the task function returning).
	 * @param completions the run's completions, if one is measuring
	 * @param taskId the task
	 */
	static void finished(AtomicReference<TaskCompletions> completions, String taskId) {
		TaskCompletions current = completions.get();
		if (current != null) {
			current.finished(taskId);
		}
	}

}

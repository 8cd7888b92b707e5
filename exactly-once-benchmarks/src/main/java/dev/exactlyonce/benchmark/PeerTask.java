package dev.exactlyonce.benchmark;

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

	private static final String FILLER = "x".repeat(160);

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

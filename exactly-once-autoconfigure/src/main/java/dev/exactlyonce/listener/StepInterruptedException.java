package dev.exactlyonce.listener;

/**
 * Thrown by a step that an earlier attempt started and never finished, when the step has no probe
 * and the consumer's {@code on-abandoned} policy is {@code dead-letter}: whether its side effect
 * happened is unknown, so the task is parked for a person instead of running the step again. Never
 * retried.
 */
public class StepInterruptedException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param step the step
	 * @param attempt the attempt that started it
	 * @param consumer the consumer whose {@code on-abandoned} policy applies
	 */
	public StepInterruptedException(String step, int attempt, String consumer) {
		super("Step '" + step + "' was started by attempt " + attempt + ", which ended before the step finished, "
				+ "and the step has no probe: its side effect may have happened. Dead-lettered as "
				+ "exactlyonce.consumers." + consumer + ".on-abandoned is dead-letter; give the step a probe, or use "
				+ "on-abandoned retry to run it again");
	}

}

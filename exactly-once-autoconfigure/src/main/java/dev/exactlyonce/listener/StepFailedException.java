package dev.exactlyonce.listener;

/**
 * Carries a checked exception thrown by a step's action or probe out of
 * {@link ExactlyOnceContext#step}; unchecked exceptions pass through as they are. The step is
 * journaled as failed and runs again on the next attempt.
 */
public class StepFailedException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param step the step
	 * @param cause what the action or probe threw
	 */
	public StepFailedException(String step, Exception cause) {
		super("Step '" + step + "' failed: " + cause, cause);
	}

}

package dev.exactlyonce.listener;

/**
 * The action of a durable step: the work whose result is journaled, typically a call with a side
 * effect or a cost (a model call, a commit, a deployment).
 *
 * @param <T> the result type, written to the journal as JSON
 * @see ExactlyOnceContext#step(String, Class, StepAction)
 */
@FunctionalInterface
public interface StepAction<T> {

	/**
	 * Runs the step's work.
	 * @return the result; journaled, and returned instead of running again on a later attempt
	 * @throws Exception when the work fails; the step is journaled as failed and runs again on the
	 * next attempt
	 */
	T run() throws Exception;

}

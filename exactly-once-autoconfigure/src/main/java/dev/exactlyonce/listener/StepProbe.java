package dev.exactlyonce.listener;

import java.util.Optional;

/**
 * Looks for the side effect of a step that an earlier attempt started but did not finish (it died
 * between the action and journaling its result), for example a commit carrying the task's key.
 *
 * @param <T> the step's result type
 * @see ExactlyOnceContext#step(String, Class, StepAction, StepProbe)
 */
@FunctionalInterface
public interface StepProbe<T> {

	/**
	 * Looks for the step's side effect.
	 * @return the result the action would have returned when its side effect is found (journaled
	 * as the step's result, the action is not run), else empty (the action runs)
	 * @throws Exception when the lookup fails; the attempt fails and is retried
	 */
	Optional<T> find() throws Exception;

}

package dev.exactlyonce.steps.spi;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.listener.StepAction;
import dev.exactlyonce.listener.StepFailedException;
import dev.exactlyonce.listener.StepProbe;
import dev.exactlyonce.publish.PublishResult;
import dev.exactlyonce.store.StepRecord;

/**
 * The durable steps of one claimed delivery: each replays a journaled result, probes for the side
 * effect of an unfinished earlier run, or runs its action, and journals what it does.
 */
public interface StepSession {

	/**
	 * See {@link dev.exactlyonce.listener.ExactlyOnceContext#step(String, ParameterizedTypeReference, StepAction, StepProbe)}.
	 * @param <T> the result type
	 * @param name the step's name
	 * @param type the result type
	 * @param action the step's work
	 * @param probe looks for the side effect of an unfinished earlier run, or {@code null}
	 * @return the result, run or replayed
	 */
	<T> T run(String name, ParameterizedTypeReference<T> type, StepAction<T> action, StepProbe<T> probe);

	/**
	 * Whether an earlier attempt of this run finished the step, so that it replays without running.
	 * @param name the step's name
	 * @return {@code true} when it is journaled DONE
	 */
	boolean finished(String name);

	/**
	 * See {@link dev.exactlyonce.listener.ExactlyOnceContext#publish(String, String, Object)}.
	 * @param step the step's name
	 * @param subject the subject
	 * @param payload the payload
	 * @return the server's acknowledgement, run or replayed
	 */
	PublishResult publish(String step, String subject, Object payload);

	/**
	 * Checks a wait's name (unique with the steps', not inside a step's action) and returns what
	 * earlier attempts journaled for it.
	 * @param name the wait's name
	 * @return the earlier entry, or {@code null}
	 */
	StepRecord beginWait(String name);

	/**
	 * Journals the DONE entries kept for the listener's transaction, once, just before its
	 * completion record; a failure fails the transaction.
	 */
	void commitSteps();

	/**
	 * Journals an entry (a wait's, a child's result) at once, with the steps' {@code DONE} entries
	 * still held before it, fenced by the claim, retried while the store is unavailable.
	 * @param step the entry
	 */
	void journal(StepRecord step);

	/**
	 * Journals the steps' {@code DONE} entries still held for the next write: called when the
	 * handler returns, throws or suspends, before anything else is written for the delivery.
	 */
	void flush();

	/**
	 * Calls an action; checked exceptions leave as {@link StepFailedException} (an
	 * {@link InterruptedException} with the thread's interrupt flag restored).
	 * @param <T> the result type
	 * @param name the step's name
	 * @param call the action
	 * @return its result
	 */
	static <T> T callAction(String name, StepAction<T> call) {
		try {
			return call.run();
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new StepFailedException(name, ex);
		}
		catch (Exception ex) {
			throw new StepFailedException(name, ex);
		}
	}

}

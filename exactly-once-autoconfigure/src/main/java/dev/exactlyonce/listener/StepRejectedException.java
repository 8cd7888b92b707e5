package dev.exactlyonce.listener;

/**
 * Thrown when the starter cannot journal or replay a durable step for a reason that would recur on
 * every attempt: a step without a name or with a name used twice in one run, a result larger than
 * {@code exactlyonce.steps.max-result-size}, a result that cannot be written as JSON or read back as
 * its declared type, a probe that returned {@code null}, a journaled result whose type changed since.
 * Never retried: running the handler again would pay for the same work and fail the same way, so the
 * message is dead-lettered at once with this message, which names the step, the type and the fix.
 */
public class StepRejectedException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message what was rejected, why, and the fix
	 * @param cause the underlying failure, or {@code null}
	 */
	public StepRejectedException(String message, Throwable cause) {
		super(message, cause);
	}

}

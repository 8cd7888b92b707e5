package dev.exactlyonce.operations;

/**
 * Thrown when an operator's request cannot be carried out as asked: an unknown consumer, a dead
 * letter that is gone, a task in a state that does not allow the action. The message says what
 * was found and what to do instead.
 */
public class OperationRefusedException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message what was found and what to do instead
	 */
	public OperationRefusedException(String message) {
		super(message);
	}

	/**
	 * Creates the exception with its cause.
	 * @param message what failed and what to do
	 * @param cause the cause
	 */
	public OperationRefusedException(String message, Throwable cause) {
		super(message, cause);
	}

}

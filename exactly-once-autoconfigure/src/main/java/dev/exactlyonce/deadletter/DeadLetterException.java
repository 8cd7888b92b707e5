package dev.exactlyonce.deadletter;

/**
 * Thrown when a dead letter could not be stored; the original message must then stay on its
 * stream.
 */
public class DeadLetterException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message what failed and which property fixes it
	 * @param cause the client's exception
	 */
	public DeadLetterException(String message, Throwable cause) {
		super(message, cause);
	}

}

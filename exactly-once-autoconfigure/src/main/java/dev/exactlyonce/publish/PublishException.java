package dev.exactlyonce.publish;

/**
 * Thrown when a publish could not be confirmed by the server. Publishing again with the same
 * message id is always safe.
 */
public class PublishException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message what failed
	 * @param cause the client's exception
	 */
	public PublishException(String message, Throwable cause) {
		super(message, cause);
	}

}

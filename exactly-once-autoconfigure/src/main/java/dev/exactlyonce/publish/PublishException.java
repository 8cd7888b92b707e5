package dev.exactlyonce.publish;

/**
 * Thrown when a publish was not stored: the server refused it, or no attempt could be sent.
 * Publishing again with the same message id is always safe. When an attempt may have been stored
 * after all, the subtype {@link PublishOutcomeUnknownException} is thrown instead.
 */
public class PublishException extends RuntimeException {

	private final String messageId;

	/**
	 * Creates the exception.
	 * @param messageId the message id of the publish
	 * @param message what failed
	 * @param cause the client's exception, or {@code null}
	 */
	public PublishException(String messageId, String message, Throwable cause) {
		super(message, cause);
		this.messageId = messageId;
	}

	/**
	 * The message id of the publish: the one to publish with again.
	 * @return the message id
	 */
	public String getMessageId() {
		return this.messageId;
	}

}

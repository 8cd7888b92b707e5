package dev.exactlyonce.publish;

/**
 * Thrown when no attempt of a publish was answered although at least one was sent: the message
 * may be stored already, or later, when a copy still waiting in the client's buffer reaches the
 * server after a reconnect. Publish again with the same {@link #getMessageId() message id}, never
 * a new one, so that the stream (inside its duplicate window) or the listener's idempotency claim
 * (after it) keeps it to one task.
 */
public class PublishOutcomeUnknownException extends PublishException {

	/**
	 * Creates the exception.
	 * @param messageId the message id to publish again with
	 * @param message what happened
	 * @param cause the client's exception of the last attempt, or {@code null}
	 */
	public PublishOutcomeUnknownException(String messageId, String message, Throwable cause) {
		super(messageId, message, cause);
	}

}

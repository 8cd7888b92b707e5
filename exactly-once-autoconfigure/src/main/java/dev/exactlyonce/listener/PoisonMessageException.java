package dev.exactlyonce.listener;

/**
 * A message that can never be handled as it is (no key, unreadable payload): it is dead-lettered
 * at once without calling the handler. The message names the rule broken and the fix, never the
 * payload.
 */
public class PoisonMessageException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param rule the rule the message breaks
	 * @param fix how a publisher or the listener's configuration fixes it
	 * @param cause the underlying error, or {@code null}
	 */
	public PoisonMessageException(String rule, String fix, Throwable cause) {
		super(rule + ". " + fix, cause);
	}

}

package dev.exactlyonce.limits.spi;

/**
 * A task over a limit found the queue of its key full: it was not queued and holds nothing. The
 * attempt fails and is retried like any failure (the queue may have moved on by then); on its last
 * delivery the task is dead-lettered with this message as the reason. Says the limit, the key's
 * entry, the queue's length, the rule broken and what to change.
 */
public class LimitQueueFullException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message the limit, the key's entry, the queue's length, the rule and the fix
	 */
	public LimitQueueFullException(String message) {
		super(message);
	}

}

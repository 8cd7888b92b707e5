package dev.exactlyonce.children.spi;

import io.nats.client.impl.Headers;

/**
 * Tells the parent of a child task that the child failed (implemented by
 * {@code dev.exactlyonce.children}); does nothing for a message that names no parent.
 */
public interface ChildFailures {

	/** Tells nobody: when child tasks are off. */
	ChildFailures NONE = new ChildFailures() {

		@Override
		public void deadLettering(Headers headers, String consumer, String key, String reason) {
		}

		@Override
		public void checkDiscard(Headers headers, String consumer, String key) {
		}

		@Override
		public void discarded(Headers headers, String consumer, String key, String reason) {
		}

	};

	/**
	 * A child is being dead-lettered: its parent is noticed (not decided: a replay that completes
	 * still delivers the result) and resumed if it waits for it. Never throws: a failure is logged
	 * (the parent then learns of it at its wait's deadline).
	 * @param headers the child message's headers
	 * @param consumer the consumer that dead-letters it
	 * @param key its key, or {@code null} when none was resolved
	 * @param reason why
	 */
	void deadLettering(Headers headers, String consumer, String key, String reason);

	/**
	 * Checks, before a child's dead letter is discarded and anything is recorded, that its parent
	 * can be told here; does nothing for a message that names no parent.
	 * @param headers the dead letter's headers
	 * @param consumer the consumer that dead-lettered it
	 * @param key its key, or {@code null}
	 * @throws dev.exactlyonce.operations.OperationRefusedException when this application does not
	 * declare the parent's consumer: discard it from one that does
	 */
	void checkDiscard(Headers headers, String consumer, String key);

	/**
	 * A child's dead letter is being discarded: its failure is stored as the final decision for its
	 * parent, which is resumed if it waits for it.
	 * @param headers the dead letter's headers
	 * @param consumer the consumer that dead-lettered it
	 * @param key its key, or {@code null}
	 * @param reason the operator's reason
	 * @throws RuntimeException when it could not be stored: discard it again
	 */
	void discarded(Headers headers, String consumer, String key, String reason);

}

package dev.exactlyonce.children;

import tools.jackson.databind.JsonNode;

/**
 * What a child stores for its parent (the payload of the parent's wait decision or notice), as JSON:
 * {@code {"child":..,"childKey":..,"childConsumer":..,"outcome":..,"result":<json>,"reason":..}}.
 *
 * @param child the child's name in the parent's journal
 * @param childKey the child's key, or {@code null} when none was resolved
 * @param childConsumer the consumer that ran it
 * @param outcome how it ended
 * @param result what its handler returned, or {@code null}
 * @param reason why it failed, or {@code null}
 */
record ChildEnvelope(String child, String childKey, String childConsumer, Outcome outcome, JsonNode result,
		String reason) {

	/** How a child ended. */
	enum Outcome {

		/** Its handler returned: {@code result}. */
		COMPLETED,

		/** Dead-lettered: a notice, not final (a replay may complete it). */
		DEAD_LETTERED,

		/** Its dead letter was discarded: final. */
		DISCARDED

	}

	/** The failure this envelope reports to the parent's await, or {@code null} when the child completed. */
	ChildFailedException failure(ChildTask task) {
		return (this.outcome == Outcome.COMPLETED) ? null
				: new ChildFailedException(task.name(), task.key(), this.reason, this.outcome == Outcome.DISCARDED);
	}

}

package dev.exactlyonce.operations;

/**
 * A child task a parent started ({@code ExactlyOnceContext.startChild}), as its journal records it,
 * with what the store holds of the child when it was looked up.
 *
 * @param name the name of the parent's step that started it
 * @param subject where it was published
 * @param key its idempotency key (its message id), without namespace
 * @param stream the stream that stored it
 * @param consumer the consumer whose listener holds a record of it, or {@code null} when not looked up
 * or no consumer of this application on its stream holds one (not claimed yet, expired, or run by
 * another application)
 * @param status its status, or {@code null} when {@code consumer} is
 * @param resultSummary its result summary (for a waiting child: what it waits for), or {@code null}
 */
public record ChildLink(String name, String subject, String key, String stream, String consumer, TaskStatus status,
		String resultSummary) {

	/**
	 * This child as a given consumer's record has it.
	 * @param consumer the consumer
	 * @param child the child's task as that consumer holds it
	 * @return the child with its consumer, status and result summary
	 */
	ChildLink found(String consumer, TaskView child) {
		return new ChildLink(this.name, this.subject, this.key, this.stream, consumer, child.status(),
				child.resultSummary());
	}

}

package dev.exactlyonce.children;

/**
 * A child task a parent started with {@code ExactlyOnceContext.startChild}: the value the parent's
 * {@code startChild} step journaled, so the same on every replay of the parent's run.
 *
 * @param name the step's name in the parent's journal (unique within its run)
 * @param subject the subject the child was published on
 * @param key the child's idempotency key, which is also its {@code Nats-Msg-Id}
 * @param stream the stream that stored the child's message
 * @param streamSequence the message's sequence in that stream
 */
public record ChildTask(String name, String subject, String key, String stream, long streamSequence) {

	/**
	 * The name of the wait with which the parent awaits this child's result: {@code <name>.result}.
	 * @return the wait's name
	 */
	public String resultWaitName() {
		return this.name + ".result";
	}

}

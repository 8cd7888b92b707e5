package dev.exactlyonce.takeover;

/**
 * A task an incarnation runs: the claim it holds and the message it holds it for.
 *
 * @param storeKey the task's key in the idempotency store
 * @param owner the claim's owner
 * @param token the claim's fencing token
 * @param stream the message's stream
 * @param consumer the consumer that delivered it
 * @param streamSequence its stream sequence
 * @param deliveryCount its delivery count
 */
public record RunningTask(String storeKey, String owner, String token, String stream, String consumer,
		long streamSequence, long deliveryCount) {
}

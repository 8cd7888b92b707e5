package dev.exactlyonce.operations;

import dev.exactlyonce.store.OperatorAction;

/**
 * What an operator's replay, resubmit or discard did.
 *
 * @param consumer the consumer whose listener runs the task
 * @param key the task's key, without namespace
 * @param action the action
 * @param number the action's number for this key (1 for the first of its kind)
 * @param deadLetterSequence the dead letter acted on, or 0 for a resubmit
 * @param messageId the message id of the republished copy, or {@code null} for a discard
 * @param streamSequence the copy's sequence in its stream, or 0 for a discard
 * @param duplicate whether the stream already held that copy (an earlier or concurrent request
 * published it), so nothing new was stored
 */
public record OperationOutcome(String consumer, String key, OperatorAction.Kind action, int number,
		long deadLetterSequence, String messageId, long streamSequence, boolean duplicate) {
}

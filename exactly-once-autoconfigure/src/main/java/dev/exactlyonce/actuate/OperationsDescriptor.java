package dev.exactlyonce.actuate;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.exactlyonce.operations.TaskStatus;

/**
 * What {@code GET /actuator/exactlyonceops} returns: the consumers an operator can act on, with
 * their tasks counted by status and their dead letters counted.
 *
 * @param store the store's name
 * @param listable whether the store can list its records (tasks by status); when not, {@code tasks}
 * is {@code null} for every consumer and tasks are read by key only
 * @param showPayloads whether dead-letter listings include payloads
 * ({@code exactlyonce.operations.show-payloads})
 * @param user who asks: the authenticated user's name, the one writes record in the audit
 * ({@code anonymous} without one)
 * @param consumers by name
 */
public record OperationsDescriptor(String store, boolean listable, boolean showPayloads, String user,
		Map<String, ConsumerOperations> consumers) {

	/**
	 * One consumer.
	 *
	 * @param stream its stream
	 * @param deadLetterSubject where its dead letters are
	 * @param deadLetters how many dead letters it has now, or {@code null} when the stream could not be read
	 * @param tasks its tasks counted by status, or {@code null} when the store cannot list them
	 * @param resubmit whether its tasks can be resubmitted from its stream (Limits retention; WorkQueue
	 * and Interest streams remove acknowledged messages), or {@code null} when the stream could not be read
	 */
	public record ConsumerOperations(String stream, String deadLetterSubject, @Nullable Long deadLetters,
			@Nullable Map<TaskStatus, Long> tasks, @Nullable Boolean resubmit) {
	}

}

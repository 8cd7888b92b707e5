package dev.exactlyonce.sample;

/**
 * Thrown by the marketing agent for a task whose topic is in {@code sample.rejected-topics}: the
 * sample's stand-in for a bug. Non-retryable ({@code exactlyonce.listener.non-retryable-exceptions}),
 * so the task is dead-lettered at once, to be replayed after the "fix".
 */
class RejectedTopicException extends RuntimeException {

	RejectedTopicException(String taskId, String topic) {
		super("Task " + taskId + " has topic '" + topic + "', which sample.rejected-topics refuses");
	}

}

package dev.exactlyonce.sample;

/**
 * Thrown by the marketing agent for a task whose topic is in {@code sample.rejected-topics}: the
 * sample's stand-in for a bug. Non-retryable ({@code exactlyonce.listener.non-retryable-exceptions}),
 * so the task is dead-lettered at once, to be replayed after the "fix".
 */
class RejectedTopicException extends RuntimeException {

	RejectedTopicException(String taskId, String topic) {
		super("Task " + taskId + " has topic '" + topic + "', which sample.rejected-topics refuses (the sample's stand-in for "
				+ "a bug in the handler). To fix it, remove the topic from sample.rejected-topics, then replay this dead letter "
				+ "(the dashboard's Replay button, or POST /actuator/exactlyonceops/<consumer>/deadletters/<#>)");
	}

}

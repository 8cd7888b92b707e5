package dev.exactlyonce.actuate;

import dev.exactlyonce.waits.SignalOutcome;

/**
 * What {@code POST .../{consumer}/tasks/{key}/signals/{name}} answers when the signal was taken or
 * kept ({@code RESUMED}, {@code BUFFERED}) or sent before ({@code DUPLICATE}).
 *
 * @param consumer the consumer
 * @param key the task's key, without namespace
 * @param signal the wait's name
 * @param id the signal's id (the one given, or the one made up for a request without it)
 * @param outcome what became of the signal
 * @param meaning the outcome in words
 */
public record SignalAnswer(String consumer, String key, String signal, String id, SignalOutcome outcome,
		String meaning) {

	/**
	 * The outcome in words.
	 * @param outcome the outcome
	 * @param name the wait's name
	 * @param id the signal's id
	 * @return what it means
	 */
	static String meaning(SignalOutcome outcome, String name, String id) {
		return switch (outcome) {
			case RESUMED -> "The task was waiting for signal '" + name + "': it is resumed, and its wait returns the payload";
			case BUFFERED -> "The task has not reached its wait '" + name + "' yet: the signal is kept, and the wait "
					+ "returns it when the task gets there";
			case DUPLICATE -> "Signal id '" + id + "' was taken for wait '" + name + "' already (a repeated request): "
					+ "nothing changed";
			case TOO_LATE -> "Wait '" + name + "' cannot take this signal: it timed out, another signal ended it, or the "
					+ "task finished (completed or dead-lettered) or was resubmitted since";
			case NO_SUCH_TASK -> "The store holds no record of the task (never delivered, or older than "
					+ "exactlyonce.store.completed-ttl)";
		};
	}

}

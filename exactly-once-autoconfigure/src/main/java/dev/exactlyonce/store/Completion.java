package dev.exactlyonce.store;

import java.time.Duration;

/**
 * What a completed attempt writes into its record.
 *
 * @param listener the listener that completed it
 * @param streamSequence the stream sequence of the message
 * @param resultSummary a short, size-capped summary of the result, or {@code null}
 * @param state {@link RecordState#COMPLETED}, {@link RecordState#DEAD_LETTERED} for a key parked
 * in a dead letter, or {@link RecordState#WAITING} for a task suspended at a durable wait
 * @param keptFor how much longer than {@code completed-ttl} the record is kept: a waiting task's
 * longest wait, else zero
 */
public record Completion(String listener, long streamSequence, String resultSummary, RecordState state,
		Duration keptFor) {

	/**
	 * A completion kept {@code completed-ttl} from when it is written.
	 * @param listener the listener
	 * @param streamSequence the stream sequence
	 * @param resultSummary the summary
	 * @param state the state
	 */
	public Completion(String listener, long streamSequence, String resultSummary, RecordState state) {
		this(listener, streamSequence, resultSummary, state, Duration.ZERO);
	}

	/**
	 * A task suspended at a durable wait: kept until its wait ends and {@code completed-ttl} after.
	 * @param listener the listener
	 * @param streamSequence the stream sequence of the message that suspended it
	 * @param waitingFor what it waits for and until when, e.g. {@code signal 'approval' until ...}
	 * @param waitFor how long the wait may last at most
	 * @return the completion
	 */
	public static Completion waiting(String listener, long streamSequence, String waitingFor, Duration waitFor) {
		return new Completion(listener, streamSequence, waitingFor, RecordState.WAITING, waitFor);
	}

	/**
	 * A successful completion.
	 * @param listener the listener
	 * @param streamSequence the stream sequence
	 * @param resultSummary the result summary or {@code null}
	 * @return the completion
	 */
	public static Completion completed(String listener, long streamSequence, String resultSummary) {
		return new Completion(listener, streamSequence, resultSummary, RecordState.COMPLETED);
	}

	/**
	 * A key parked in a dead letter.
	 * @param listener the listener
	 * @param streamSequence the stream sequence
	 * @param reason why it was dead-lettered
	 * @return the completion
	 */
	public static Completion deadLettered(String listener, long streamSequence, String reason) {
		return new Completion(listener, streamSequence, reason, RecordState.DEAD_LETTERED);
	}

}

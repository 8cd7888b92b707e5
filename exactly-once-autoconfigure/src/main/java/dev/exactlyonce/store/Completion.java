package dev.exactlyonce.store;

/**
 * What a completed attempt writes into its record.
 *
 * @param listener the listener that completed it
 * @param streamSequence the stream sequence of the message
 * @param resultSummary a short, size-capped summary of the result, or {@code null}
 * @param state {@link RecordState#COMPLETED}, or {@link RecordState#DEAD_LETTERED} for a key parked
 * in a dead letter
 */
public record Completion(String listener, long streamSequence, String resultSummary, RecordState state) {

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

package dev.exactlyonce.store;

import java.time.Instant;

/**
 * The attempt before the current one, handed to a handler that runs again so it can check for its
 * own side effects before redoing them.
 *
 * @param owner who made the attempt
 * @param startedAt when it started
 * @param attempts how many attempts were made before this one
 * @param state how it ended: {@link RecordState#FAILED} (released after an exception) or
 * {@link RecordState#IN_PROGRESS} (abandoned: its lease expired mid-work)
 * @param failure the failure description of a released attempt, else {@code null}
 */
public record PreviousAttempt(String owner, Instant startedAt, int attempts, RecordState state, String failure) {

	/**
	 * The previous attempt a record describes: a released (failed) or abandoned claim.
	 * @param record the record before it is claimed again
	 * @return the previous attempt, carrying the failure only of a released attempt
	 */
	public static PreviousAttempt of(IdempotencyRecord record) {
		return new PreviousAttempt(record.owner(), record.startedAt(), record.attempts(), record.state(),
				(record.state() == RecordState.FAILED) ? record.resultSummary() : null);
	}

	/**
	 * Whether the previous attempt died mid-work rather than failing with an exception.
	 * @return {@code true} when the attempt was abandoned
	 */
	public boolean abandoned() {
		return this.state == RecordState.IN_PROGRESS;
	}

}

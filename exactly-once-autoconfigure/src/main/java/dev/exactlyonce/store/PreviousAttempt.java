package dev.exactlyonce.store;

import java.time.Instant;
import java.util.Optional;

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
 * @param unfinishedStep the last step it started and neither finished nor failed, else {@code null}
 * @param token the fencing token of its claim, which no other claim ever had; {@code null} in a
 * record written before it was kept
 */
public record PreviousAttempt(String owner, Instant startedAt, int attempts, RecordState state, String failure,
		String unfinishedStep, String token) {

	/**
	 * The previous attempt a record describes: a released (failed) or abandoned claim.
	 * @param record the record before it is claimed again
	 * @return the previous attempt, carrying the failure only of a released attempt
	 */
	public static PreviousAttempt of(IdempotencyRecord record) {
		return new PreviousAttempt(record.owner(), record.startedAt(), record.attempts(), record.state(),
				(record.state() == RecordState.FAILED) ? record.resultSummary() : null,
				record.journal().lastUnfinished().orElse(null), record.token());
	}

	/**
	 * The step the previous attempt was in when it died or failed: started, neither finished nor
	 * failed. Its side effect may or may not have happened.
	 * @return the step name, or empty when no step was left unfinished
	 */
	public Optional<String> lastStep() {
		return Optional.ofNullable(this.unfinishedStep);
	}

	/**
	 * Whether the previous attempt died mid-work rather than failing with an exception.
	 * @return {@code true} when the attempt was abandoned
	 */
	public boolean abandoned() {
		return this.state == RecordState.IN_PROGRESS;
	}

}

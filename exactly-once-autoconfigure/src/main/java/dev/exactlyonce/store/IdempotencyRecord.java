package dev.exactlyonce.store;

import java.time.Instant;

/**
 * Everything a store keeps about one idempotency key.
 *
 * @param key the namespaced idempotency key
 * @param listener the listener of the last completion, or {@code null} while in progress
 * @param owner the holder of the last claim
 * @param token the fencing token of the last claim
 * @param state the state
 * @param attempts how many attempts acquired the claim, not counting those a routine shutdown
 * released ({@link IdempotencyStore#RELEASED_BY_SHUTDOWN})
 * @param startedAt when the last attempt acquired the claim
 * @param leaseUntil when the last claim's lease ends
 * @param streamSequence the stream sequence of the completed message, or 0
 * @param completedAt when it was completed, or {@code null}
 * @param expiresAt when the record may be forgotten
 * @param resultSummary a size-capped result summary, the failure of a released attempt, or
 * {@code null}
 * @param previousAttempt the attempt the last claim took over (released or abandoned), or
 * {@code null} for a first attempt; kept so that a claim whose answer was lost can be recognised
 * with what it took over
 * @param journal the steps the key's attempts journaled, never {@code null}
 */
public record IdempotencyRecord(String key, String listener, String owner, String token, RecordState state,
		int attempts, Instant startedAt, Instant leaseUntil, long streamSequence, Instant completedAt,
		Instant expiresAt, String resultSummary, PreviousAttempt previousAttempt, StepJournal journal) {

	/**
	 * Creates a record; a {@code null} journal (a record written before steps existed) is empty.
	 */
	public IdempotencyRecord {
		journal = (journal != null) ? journal : StepJournal.EMPTY;
	}

	/**
	 * Whether the claim is held by someone whose lease has not yet run out.
	 * @param now the current time
	 * @return {@code true} for a live claim
	 */
	public boolean isLiveClaim(Instant now) {
		return this.state == RecordState.IN_PROGRESS && this.leaseUntil.isAfter(now);
	}

	/**
	 * Whether the record is final: completed or dead-lettered.
	 * @return {@code true} when no attempt may run for this key any more
	 */
	public boolean isFinal() {
		return this.state == RecordState.COMPLETED || this.state == RecordState.DEAD_LETTERED;
	}

}

package dev.exactlyonce.operations;

import java.time.Instant;

import dev.exactlyonce.store.IdempotencyRecord;

/**
 * The state of a task as an operator sees it: the store's state, with an in-progress claim whose
 * lease ran out told apart as abandoned (its holder died mid-work).
 */
public enum TaskStatus {

	/** An attempt holds a live claim. */
	IN_PROGRESS,

	/** The last attempt's lease ran out without a completion: the next delivery takes it over. */
	ABANDONED,

	/** The last attempt failed and released its claim; a later delivery (or a resubmit) runs it. */
	FAILED,

	/** Parked in a dead letter: a person decides (replay or discard). */
	DEAD_LETTERED,

	/** Completed: never run again unless resubmitted. */
	COMPLETED,

	/** Suspended at a durable wait: a signal or the wait's deadline resumes it. */
	WAITING;

	/**
	 * The status of a record.
	 * @param record the record
	 * @param now the current time
	 * @return its status
	 */
	public static TaskStatus of(IdempotencyRecord record, Instant now) {
		return switch (record.state()) {
			case IN_PROGRESS -> record.isLiveClaim(now) ? IN_PROGRESS : ABANDONED;
			case FAILED -> FAILED;
			case DEAD_LETTERED -> DEAD_LETTERED;
			case COMPLETED -> COMPLETED;
			case WAITING -> WAITING;
		};
	}

}

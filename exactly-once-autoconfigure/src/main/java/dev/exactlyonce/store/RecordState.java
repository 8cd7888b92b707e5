package dev.exactlyonce.store;

/**
 * The state of an idempotency record.
 */
public enum RecordState {

	/** Claimed; valid while the lease lasts, abandoned after. */
	IN_PROGRESS,

	/** Completed; never run again. */
	COMPLETED,

	/** The last attempt failed and released the claim; a later delivery may run it. */
	FAILED,

	/** Parked in a dead letter; never run again automatically. */
	DEAD_LETTERED,

	/**
	 * Suspended at a durable wait (a signal, a sleep): no attempt holds it and no delivery of it is
	 * pending; a copy delivered meanwhile is settled without running. A signal or the wait's deadline
	 * reopens it ({@link OperatorAction.Kind#RESUME}) and publishes the copy that resumes it.
	 */
	WAITING

}

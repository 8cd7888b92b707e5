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
	DEAD_LETTERED

}

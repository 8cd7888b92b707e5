package dev.exactlyonce.waits;

/**
 * What became of a signal ({@link ExactlyOnceSignals#signal}).
 */
public enum SignalOutcome {

	/** The task was waiting for it: it is resumed and its wait returns the payload. */
	RESUMED,

	/** The task has not reached the wait yet (or is being suspended): the wait will find it there. */
	BUFFERED,

	/**
	 * A signal with this id was taken for that wait already, in this run of the task or an earlier
	 * one, also when its task has finished since (a resubmitted task's wait is never satisfied by its
	 * earlier run's signal): nothing changed.
	 */
	DUPLICATE,

	/**
	 * The wait cannot take it: it timed out, another signal ended it, or the task finished (completed
	 * or dead-lettered) without it or was resubmitted since.
	 */
	TOO_LATE,

	/** The store has no record of the task (never delivered, or older than {@code completed-ttl}). */
	NO_SUCH_TASK

}

package dev.exactlyonce.listener;

/**
 * The named points of the exactly-once pipeline, in order, at which {@link PipelineObserver}s are
 * called.
 */
public enum PipelinePoint {

	/** A message was received from the server; nothing else happened yet. */
	RECEIVED,

	/** The idempotency claim was acquired. */
	CLAIMED,

	/** The handler is about to be invoked. */
	INVOKING,

	/**
	 * A durable step's action returned (its side effect is done); its result is not journaled yet.
	 * Reached once per step the handler runs, between {@link #INVOKING} and {@link #HANDLED}.
	 */
	STEP_PERFORMED,

	/** The handler returned (its side effects are done); the completion record is not written yet. */
	HANDLED,

	/** The completion record is durable; the message is not acknowledged yet. */
	COMPLETED,

	/** The acknowledgement was sent (and, with ack-mode sync, confirmed by the server). */
	ACKED,

	/**
	 * Listed last, reached after {@link #INVOKING} instead of {@link #HANDLED} and {@link #COMPLETED}:
	 * the handler stopped at a durable wait and the task is suspended (its wait's ticket and its
	 * {@code WAITING} record are written); the message is not acknowledged yet.
	 */
	SUSPENDED,

	/**
	 * Listed last, reached only by deliveries of child tasks, between {@link #INVOKING} and
	 * {@link #HANDLED}: the handler returned and its result is stored as the decision of its parent's
	 * wait; the parent is not resumed yet (a crash here leaves it to the wait timer's next look).
	 */
	CHILD_RESULT_STORED

}

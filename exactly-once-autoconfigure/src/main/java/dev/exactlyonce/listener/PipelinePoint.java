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

	/** The handler returned (its side effects are done); the completion record is not written yet. */
	HANDLED,

	/** The completion record is durable; the message is not acknowledged yet. */
	COMPLETED,

	/** The acknowledgement was sent (and, with ack-mode sync, confirmed by the server). */
	ACKED

}

package dev.exactlyonce.audit;

/**
 * One finding of a reconciliation that a person should look at.
 *
 * @param type what kind of finding
 * @param streamSequence the message's stream sequence, or {@code null} when unknown (claims)
 * @param key the idempotency key (with namespace), or {@code null} when unknown
 * @param detail what was seen, without payloads
 */
public record Discrepancy(Type type, Long streamSequence, String key, String detail) {

	/** Kinds of findings. */
	public enum Type {

		/** A completion record is older than the ack wait but the message is still unacknowledged. */
		COMPLETED_NOT_ACKED,

		/** The consumer acknowledged the message (or it left the stream) without a completion record or dead letter. */
		ACKED_WITHOUT_RECORD,

		/** A claim's lease ran out without completion or release: its holder died mid-work. */
		STUCK_CLAIM,

		/** The message was parked in the dead-letter stream. */
		DEAD_LETTERED,

		/** A handler ran again for a key after a claim was lost or abandoned mid-work. */
		REACHED_EXECUTION

	}

}

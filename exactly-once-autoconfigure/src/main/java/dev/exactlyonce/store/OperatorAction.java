package dev.exactlyonce.store;

import java.time.Instant;
import java.util.Set;

/**
 * An operator's action on a task, kept on the task's {@link IdempotencyRecord} as its audit trail.
 *
 * @param kind what was done
 * @param number how many actions of this kind the key has had, this one included (1 for the first);
 * (the message id of a replayed copy is named after its dead letter, not this number, which begins
 * again when a record expired)
 * @param operator who did it (the authenticated user, or {@code anonymous})
 * @param reason why, in the operator's words
 * @param at when
 * @param deadLetterSequence the sequence of the dead letter it was done to in the dead-letter stream,
 * or 0 for a resubmit
 */
public record OperatorAction(Kind kind, int number, String operator, String reason, Instant at,
		long deadLetterSequence) {

	/**
	 * What an operator can do to a task that no attempt holds.
	 */
	public enum Kind {

		/** Run a dead-lettered task again: reopened, the dead letter republished and removed. */
		REPLAY(Set.of(RecordState.DEAD_LETTERED)),

		/** Run a completed or failed task once more on purpose: reopened with an empty step journal. */
		RESUBMIT(Set.of(RecordState.COMPLETED, RecordState.FAILED)),

		/** Drop a dead letter for good: the record stays dead-lettered. */
		DISCARD(Set.of(RecordState.DEAD_LETTERED)),

		/**
		 * End a task's durable wait (a signal arrived, or its deadline passed): reopened with its step
		 * journal, which holds what ended the wait, and its copy published again.
		 */
		RESUME(Set.of(RecordState.WAITING));

		private final Set<RecordState> from;

		Kind(Set<RecordState> from) {
			this.from = from;
		}

		/**
		 * Whether a record in this state may take this action.
		 * @param state the record's state
		 * @return {@code true} when allowed
		 */
		public boolean appliesTo(RecordState state) {
			return this.from.contains(state);
		}

		/**
		 * Whether the action reopens the key, so that its next delivery runs it.
		 * @return {@code true} for replay and resubmit
		 */
		public boolean reopens() {
			return this != DISCARD;
		}

		/**
		 * Whether the action empties the step journal, so that every step runs again.
		 * @return {@code true} for resubmit
		 */
		public boolean clearsJournal() {
			return this == RESUBMIT;
		}

	}


	/**
	 * Whether a message is the copy this action published: a replay's
	 * {@code <key>/replay-<dead-letter stream>-<dead-letter sequence>}, a resubmit's
	 * {@code <key>/resubmit-<number>}, a resumption's {@code <key>/resume/<token of the waiting record>}.
	 * @param key the task's key, without namespace
	 * @param messageId the message's {@code Nats-Msg-Id}, or {@code null}
	 * @return {@code true} for this action's copy
	 */
	public boolean publishedAs(String key, String messageId) {
		if (messageId == null) {
			return false;
		}
		return switch (this.kind) {
			case REPLAY -> messageId.startsWith(key + "/replay-") && messageId.endsWith("-" + this.deadLetterSequence);
			case RESUBMIT -> messageId.equals(key + "/resubmit-" + this.number);
			case RESUME -> messageId.startsWith(key + "/resume/");
			case DISCARD -> false;
		};
	}

}

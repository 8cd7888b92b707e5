package dev.exactlyonce.store;

import java.time.Instant;

/**
 * What {@link IdempotencyStore#tryClaim} found for a key. Only {@link Acquired} carries the step
 * journal (an attempt that takes a task over resumes it): a store reads a record's whole journal on a
 * claim only when {@link ClaimDecision#needsWholeJournal()} says so, so a duplicate of a task with a
 * long journal costs what a duplicate of a task without steps costs.
 */
public sealed interface ClaimResult {

	/**
	 * The caller now holds the claim.
	 * @param claim the claim, with its fencing token
	 * @param previousAttempt the attempt before this one when it failed or was abandoned, else
	 * {@code null}
	 * @param journal the steps earlier attempts journaled, to replay; empty on a first attempt
	 * @param run the task's run ({@link IdempotencyRecord#run()}): signals are kept per run
	 */
	record Acquired(Claim claim, PreviousAttempt previousAttempt, StepJournal journal, int run)
			implements ClaimResult {

		/**
		 * The claim a stored {@link RecordState#IN_PROGRESS} record describes.
		 * @param held the record of the claim
		 * @return the claim, with the attempt it took over, the journal it carries and its run
		 */
		public static Acquired of(IdempotencyRecord held) {
			return new Acquired(new Claim(held.key(), held.owner(), held.token(), held.attempts(), held.startedAt(),
					held.leaseUntil()), held.previousAttempt(), held.journal(), held.run());
		}

	}

	/**
	 * The key was completed before: do not run it again.
	 * @param record the completion record, without its step journal: a duplicate is answered without
	 * reading or shipping the journal ({@link IdempotencyStore#find} reads it whole)
	 */
	record Completed(IdempotencyRecord record) implements ClaimResult {

		/**
		 * Creates the answer, dropping the record's journal.
		 * @param record the completion record
		 */
		public Completed {
			record = record.withJournal(StepJournal.EMPTY);
		}

	}

	/**
	 * The task is suspended at a durable wait: this copy must not run it (the wait's end publishes
	 * the copy that resumes it).
	 * @param record the record of the key, without its step journal (as {@link Completed})
	 */
	record Waiting(IdempotencyRecord record) implements ClaimResult {

		/**
		 * Creates the answer, dropping the record's journal.
		 * @param record the record of the key
		 */
		public Waiting {
			record = record.withJournal(StepJournal.EMPTY);
		}

	}

	/**
	 * Someone else holds a live claim.
	 * @param owner the holder
	 * @param leaseUntil when the holder's lease ends unless renewed
	 */
	record HeldElsewhere(String owner, Instant leaseUntil) implements ClaimResult {
	}

	/**
	 * The key was parked in a dead letter and must not run again until a person releases it.
	 * @param record the record of the key, without its step journal (as {@link Completed})
	 */
	record DeadLettered(IdempotencyRecord record) implements ClaimResult {

		/**
		 * Creates the answer, dropping the record's journal.
		 * @param record the record of the key
		 */
		public DeadLettered {
			record = record.withJournal(StepJournal.EMPTY);
		}

	}

}

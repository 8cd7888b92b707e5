package dev.exactlyonce.store;

import java.time.Instant;

/**
 * What {@link IdempotencyStore#tryClaim} found for a key.
 */
public sealed interface ClaimResult {

	/**
	 * The caller now holds the claim.
	 * @param claim the claim, with its fencing token
	 * @param previousAttempt the attempt before this one when it failed or was abandoned, else
	 * {@code null}
	 * @param journal the steps earlier attempts journaled, to replay; empty on a first attempt
	 */
	record Acquired(Claim claim, PreviousAttempt previousAttempt, StepJournal journal) implements ClaimResult {

		/**
		 * The claim a stored {@link RecordState#IN_PROGRESS} record describes.
		 * @param held the record of the claim
		 * @return the claim, with the attempt it took over and the journal it carries
		 */
		public static Acquired of(IdempotencyRecord held) {
			return new Acquired(new Claim(held.key(), held.owner(), held.token(), held.attempts(), held.startedAt(),
					held.leaseUntil()), held.previousAttempt(), held.journal());
		}

	}

	/**
	 * The key was completed before: do not run it again.
	 * @param record the completion record
	 */
	record Completed(IdempotencyRecord record) implements ClaimResult {
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
	 * @param record the record of the key
	 */
	record DeadLettered(IdempotencyRecord record) implements ClaimResult {
	}

}

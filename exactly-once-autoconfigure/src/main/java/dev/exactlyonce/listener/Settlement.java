package dev.exactlyonce.listener;

import java.time.Instant;

/**
 * What the advice decided the container must do with a delivery after the invocation returned.
 */
sealed interface Settlement {

	/** The handler ran and its completion is durable: ack. */
	record Processed() implements Settlement {
	}

	/**
	 * The handler stopped at a durable wait and the task is suspended (its WAITING record and what
	 * resumes it are stored): ack.
	 * @param waitingFor what it waits for
	 */
	record Suspended(String waitingFor) implements Settlement {
	}

	/** Completed before, or suspended at a wait (its resumption publishes its own copy): ack without running. */
	record Duplicate() implements Settlement {
	}

	/** {@code owner} holds a live claim until {@code leaseUntil}: nak with that delay. */
	record HeldElsewhere(String owner, Instant leaseUntil) implements Settlement {
	}

	/** The key was dead-lettered before: terminate this copy. */
	record AlreadyDeadLettered() implements Settlement {
	}

	/** The key's attempts, across all its copies, reached max-deliver: dead-letter without running. */
	record KeyAttemptsExhausted(int attempts) implements Settlement {
	}

	/** The store did not answer the claim: retry later without running. */
	record StoreUnavailable(RuntimeException cause) implements Settlement {
	}

	/** The previous attempt died mid-work and the policy is dead-letter. */
	record AbandonedToDeadLetter() implements Settlement {
	}

	/** The claim was taken over while the handler ran: neither complete nor ack. */
	record ClaimLost() implements Settlement {
	}

	/** The handler ran but its completion could not be recorded in time: do not ack. */
	record CompletionUnrecorded(RuntimeException cause) implements Settlement {
	}

	/**
	 * The handler ran, its completion could not be recorded before the listener stopped and is parked
	 * for the next attempt: do not ack.
	 */
	record CompletionParked(RuntimeException cause) implements Settlement {
	}

	/**
	 * The attempt taken over had finished; its parked completion is now recorded: ack without running.
	 * @param otherCopy whether this delivery is another copy of the key than the message that completed
	 * (noted on the record as its duplicate, for reconciliation)
	 */
	record CompletionRecovered(boolean otherCopy) implements Settlement {
	}

}

package dev.exactlyonce.operations;

import java.time.Instant;
import java.util.Optional;

import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.OperatorAction;

/**
 * What a refusal says about a task's record: its real state, owner and last outcome, and what (if
 * anything) runs the task next, so an operator who is refused is told the truth about the task.
 */
final class RecordFacts {

	private RecordFacts() {
	}

	/**
	 * The record's state, owner, attempts and last outcome.
	 * @param record the record
	 * @param now the current time
	 * @return e.g. {@code FAILED (owner a#4, 0 attempts, last outcome: 'REPLAY 1 by alice: fixed')}
	 */
	static String of(IdempotencyRecord record, Instant now) {
		return TaskStatus.of(record, now) + " (owner " + record.owner() + ", " + record.attempts() + " attempt(s), last "
				+ "outcome: " + ((record.resultSummary() != null) ? "'" + record.resultSummary() + "'" : "none") + ")";
	}

	/**
	 * What runs a task that is not settled (not completed, not dead-lettered) next.
	 * @param record the record
	 * @param now the current time
	 * @return the sentence
	 */
	static String whatRunsIt(IdempotencyRecord record, Instant now) {
		Optional<OperatorAction> reopened = record.pendingReopen();
		if (reopened.isPresent()) {
			OperatorAction action = reopened.get();
			return action.kind() + " " + action.number() + " by " + action.operator() + " at " + action.at()
					+ " republished it and that copy has not run yet";
		}
		return switch (TaskStatus.of(record, now)) {
			case IN_PROGRESS -> "an attempt of " + record.owner() + " runs it now (lease until " + record.leaseUntil() + ")";
			case ABANDONED -> "its last attempt (" + record.owner() + ") ended mid-work; the next delivery of its "
					+ "message takes it over (on-abandoned decides)";
			case FAILED -> "its last attempt failed and released it; the next delivery of its message runs it";
			case WAITING -> "it waits for " + record.resultSummary() + "; a signal or the wait's deadline resumes it";
			default -> "it is settled";
		};
	}

}

package dev.exactlyonce.store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Everything a store keeps about one idempotency key.
 *
 * @param key the namespaced idempotency key
 * @param listener the listener of the last completion, or {@code null} while in progress
 * @param owner the holder of the last claim
 * @param token the fencing token of the last claim
 * @param state the state
 * @param attempts how many attempts acquired the claim, not counting those a routine shutdown
 * released ({@link IdempotencyStore#RELEASED_BY_SHUTDOWN})
 * @param startedAt when the last attempt acquired the claim
 * @param leaseUntil when the last claim's lease ends
 * @param streamSequence the stream sequence of the completed message, or 0
 * @param completedAt when it was completed, or {@code null}
 * @param expiresAt when the record may be forgotten
 * @param resultSummary a size-capped result summary, the failure of a released attempt, or
 * {@code null}
 * @param previousAttempt the attempt the last claim took over (released or abandoned), or
 * {@code null} for a first attempt; kept so that a claim whose answer was lost can be recognised
 * with what it took over
 * @param journal the steps the key's attempts journaled, never {@code null}
 * @param duplicateSequences the stream sequences of the latest copies settled as duplicates of this
 * final record (see {@link IdempotencyStore#recordDuplicate}), and of the copy that had settled it
 * before an operator reopened the key, oldest first, at most
 * {@link IdempotencyStore#DUPLICATE_SEQUENCES_KEPT}; kept through the key's later attempts; never
 * {@code null}
 * @param audit the operators' actions on the key, oldest first, never {@code null}
 */
public record IdempotencyRecord(String key, String listener, String owner, String token, RecordState state,
		int attempts, Instant startedAt, Instant leaseUntil, long streamSequence, Instant completedAt,
		Instant expiresAt, String resultSummary, PreviousAttempt previousAttempt, StepJournal journal,
		List<Long> duplicateSequences, List<OperatorAction> audit) {

	/**
	 * Creates a record; a {@code null} journal, duplicate list or audit (a record written before
	 * they existed) is empty.
	 */
	public IdempotencyRecord {
		journal = (journal != null) ? journal : StepJournal.EMPTY;
		duplicateSequences = (duplicateSequences != null) ? List.copyOf(duplicateSequences) : List.of();
		audit = (audit != null) ? List.copyOf(audit) : List.of();
	}

	/**
	 * The number the next operator action of a kind gets.
	 * @param kind the kind
	 * @return 1 + the actions of that kind so far
	 */
	public int nextActionNumber(OperatorAction.Kind kind) {
		return 1 + (int) this.audit.stream().filter((action) -> action.kind() == kind).count();
	}

	/**
	 * The action of a kind taken on a dead letter, if any.
	 * @param kind the kind
	 * @param deadLetterSequence the dead letter's sequence in the dead-letter stream
	 * @return the action, or empty
	 */
	public Optional<OperatorAction> actionOn(OperatorAction.Kind kind, long deadLetterSequence) {
		return this.audit.stream()
			.filter((action) -> action.kind() == kind && action.deadLetterSequence() == deadLetterSequence)
			.findFirst();
	}

	/**
	 * The operator's replay or resubmit that reopened this key and that no attempt has taken up yet:
	 * its copy is still to run. Such a record is {@link RecordState#FAILED} with the summary the
	 * action wrote ({@link ClaimRules#reopenedSummary}) and no attempt counted; the first claim of
	 * the key changes all three.
	 * @return the pending action, or empty
	 */
	public Optional<OperatorAction> pendingReopen() {
		if (this.state != RecordState.FAILED || this.attempts != 0 || this.audit.isEmpty()) {
			return Optional.empty();
		}
		OperatorAction last = this.audit.get(this.audit.size() - 1);
		return (last.kind().reopens() && ClaimRules.reopenedSummary(last).equals(this.resultSummary))
				? Optional.of(last) : Optional.empty();
	}

	/**
	 * The task's run: 1, plus one for every resubmit (which starts the task again with an empty
	 * journal). A signal is kept for the run it was sent to, so a resubmitted task never takes a
	 * signal meant for its earlier run.
	 * @return the run, from 1
	 */
	public int run() {
		return nextActionNumber(OperatorAction.Kind.RESUBMIT);
	}

	/**
	 * Whether the claim is held by someone whose lease has not yet run out.
	 * @param now the current time
	 * @return {@code true} for a live claim
	 */
	public boolean isLiveClaim(Instant now) {
		return this.state == RecordState.IN_PROGRESS && this.leaseUntil.isAfter(now);
	}

	/**
	 * Whether the record is final: completed or dead-lettered.
	 * @return {@code true} when no attempt may run for this key any more
	 */
	public boolean isFinal() {
		return this.state == RecordState.COMPLETED || this.state == RecordState.DEAD_LETTERED;
	}

	/**
	 * This record with another step journal (a store that keeps part of a journal elsewhere writes
	 * the record with the part it keeps inside).
	 * @param steps the journal
	 * @return the record with that journal
	 */
	public IdempotencyRecord withJournal(StepJournal steps) {
		return new IdempotencyRecord(this.key, this.listener, this.owner, this.token, this.state, this.attempts,
				this.startedAt, this.leaseUntil, this.streamSequence, this.completedAt, this.expiresAt,
				this.resultSummary, this.previousAttempt, steps, this.duplicateSequences, this.audit);
	}

	/**
	 * This record with the copy at {@code streamSequence} noted as a duplicate: appended to
	 * {@link #duplicateSequences()}, of which only the last
	 * {@link IdempotencyStore#DUPLICATE_SEQUENCES_KEPT} are kept.
	 * @param streamSequence the stream sequence of the copy
	 * @return the record with the copy noted, or this record when it is noted already
	 */
	public IdempotencyRecord withDuplicate(long streamSequence) {
		if (this.duplicateSequences.contains(streamSequence)) {
			return this;
		}
		List<Long> sequences = new ArrayList<>(this.duplicateSequences);
		sequences.add(streamSequence);
		List<Long> kept = sequences.subList(Math.max(0, sequences.size() - IdempotencyStore.DUPLICATE_SEQUENCES_KEPT),
				sequences.size());
		return new IdempotencyRecord(this.key, this.listener, this.owner, this.token, this.state, this.attempts,
				this.startedAt, this.leaseUntil, this.streamSequence, this.completedAt, this.expiresAt,
				this.resultSummary, this.previousAttempt, this.journal, kept, this.audit);
	}

}

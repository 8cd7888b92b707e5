package dev.exactlyonce.store;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The state transitions of an idempotency record, shared by stores that read a record and then
 * write it back with a compare-and-set (in-memory, NATS KV, Firestore). It never writes to a store,
 * so the atomicity is the caller's. Lease expiry is decided on a {@link StoreClock}: this instance's
 * own clock for a store inside this process, the store server's clock for a shared store
 * ({@link #onServerClock}), so instances whose clocks disagree still agree on every lease.
 */
public final class ClaimRules {

	private final Clock localClock;

	private final StoreClock clock;

	private final Duration completedTtl;

	/**
	 * Creates the rules.
	 * @param clock this instance's clock, which decides lease expiry unless the rules are put
	 * {@link #onServerClock on a server's clock}
	 * @param completedTtl how long records are kept after their last write
	 */
	public ClaimRules(Clock clock, Duration completedTtl) {
		this(clock, StoreClock.of(clock), completedTtl);
	}

	private ClaimRules(Clock localClock, StoreClock clock, Duration completedTtl) {
		this.localClock = localClock;
		this.clock = clock;
		this.completedTtl = completedTtl;
	}

	/**
	 * These rules deciding on a store server's clock, read through {@code probe}; this instance's
	 * own clock then only expresses store instants to callers
	 * ({@link ClaimResult.HeldElsewhere#leaseUntil()}, {@link #onLocalClock}).
	 * @param probe a request the server stamps with its time
	 * @return the rules for a store shared by instances whose clocks may disagree
	 */
	public ClaimRules onServerClock(ServerTimeProbe probe) {
		return new ClaimRules(this.localClock, new MeasuredStoreClock(this.localClock, probe), this.completedTtl);
	}

	/**
	 * Decides a claim attempt against what the store holds.
	 * @param current the stored record, or {@code null} when there is none
	 * @param key the key
	 * @param owner the claimant
	 * @param lease the lease wanted
	 * @param token the fencing token the claim is written with, chosen before the write so that a
	 * write whose answer was lost can be recognised by it; a record already holding this owner's
	 * token is that claimant's own claim (written by an earlier call that never learnt it) and is
	 * acquired again with a fresh lease, as the same attempt
	 * @return the decision: a result to return as is, or a record to write (then the result); a
	 * holder's lease end is on this instance's own clock
	 */
	public ClaimDecision claim(IdempotencyRecord current, String key, String owner, Duration lease, String token) {
		Instant now = this.clock.earliest();
		IdempotencyRecord live = isExpired(current, now) ? null : current;
		if (live != null && LandedWrites.claimOf(owner, token).test(live)) {
			return acquire(live.attempts(), live.previousAttempt(), live, key, owner, lease, token);
		}
		if (live != null) {
			switch (live.state()) {
				case COMPLETED:
					return ClaimDecision.answer(new ClaimResult.Completed(live));
				case DEAD_LETTERED:
					return ClaimDecision.answer(new ClaimResult.DeadLettered(live));
				case WAITING:
					return ClaimDecision.answer(new ClaimResult.Waiting(live));
				case IN_PROGRESS:
					if (live.isLiveClaim(now)) {
						return ClaimDecision.answer(new ClaimResult.HeldElsewhere(live.owner(), toLocal(live.leaseUntil())));
					}
					break;
				default:
					break;
			}
		}
		return (live != null) ? acquire(live.attempts() + 1, previousOf(live), live, key, owner, lease, token)
				: acquire(1, null, null, key, owner, lease, token);
	}

	/**
	 * The attempt a claim takes over, as its handler sees it: none after a durable wait ended (the
	 * task resumes, it is not retried; the wait's own journal entry says what ended it).
	 */
	private static PreviousAttempt previousOf(IdempotencyRecord live) {
		boolean resumed = live.pendingReopen().filter((action) -> action.kind() == OperatorAction.Kind.RESUME).isPresent();
		return resumed ? null : PreviousAttempt.of(live);
	}

	/**
	 * A claim written over {@code kept} (or a fresh key when {@code null}) keeps its step journal as
	 * stored ({@link ClaimDecision#keepsJournal()}), its audit and the copies it accounts for (noted
	 * before an operator reopened the key).
	 */
	private ClaimDecision acquire(int attempt, PreviousAttempt previous, IdempotencyRecord kept, String key,
			String owner, Duration lease, String token) {
		Instant now = this.clock.latest();
		IdempotencyRecord written = new IdempotencyRecord(key, null, owner, token, RecordState.IN_PROGRESS, attempt,
				now, now.plus(lease), 0, null, now.plus(this.completedTtl), null, previous,
				(kept != null) ? kept.journal() : StepJournal.EMPTY, (kept != null) ? kept.duplicateSequences() : null,
				(kept != null) ? kept.audit() : null);
		return ClaimDecision.write(written, ClaimResult.Acquired.of(written), kept != null);
	}

	/**
	 * The record after renewing a claim's lease.
	 * @param current the stored record
	 * @param claim the claim held
	 * @param lease the new lease
	 * @return the record to write
	 * @throws ClaimLostException when the claim is not held any more
	 */
	public IdempotencyRecord renew(IdempotencyRecord current, Claim claim, Duration lease) {
		IdempotencyRecord held = requireHeld(current, claim);
		Instant now = this.clock.latest();
		return new IdempotencyRecord(held.key(), null, held.owner(), held.token(), RecordState.IN_PROGRESS,
				held.attempts(), held.startedAt(), now.plus(lease), 0, null, now.plus(this.completedTtl), null,
				held.previousAttempt(), held.journal(), held.duplicateSequences(), held.audit());
	}

	/**
	 * The record after completing a claim.
	 * @param current the stored record
	 * @param claim the claim held
	 * @param completion what the attempt produced
	 * @return the record to write
	 * @throws ClaimLostException when the claim is not held any more
	 */
	public IdempotencyRecord complete(IdempotencyRecord current, Claim claim, Completion completion) {
		IdempotencyRecord held = requireHeld(current, claim);
		Instant now = this.clock.latest();
		// a waiting task has not completed: its record keeps no completion time
		Instant completedAt = (completion.state() == RecordState.WAITING) ? null : now;
		return new IdempotencyRecord(held.key(), completion.listener(), held.owner(), held.token(), completion.state(),
				held.attempts(), held.startedAt(), held.leaseUntil(), completion.streamSequence(), completedAt,
				now.plus(this.completedTtl).plus(completion.keptFor()), completion.resultSummary(),
				held.previousAttempt(), held.journal(), held.duplicateSequences(), held.audit());
	}

	/**
	 * The record after releasing a claim whose attempt failed; a release by a routine shutdown
	 * gives its attempt back.
	 * @param current the stored record
	 * @param claim the claim held
	 * @param failure why it failed ({@link IdempotencyStore#RELEASED_BY_SHUTDOWN} for a shutdown)
	 * @return the record to write
	 * @throws ClaimLostException when the claim is not held any more
	 */
	public IdempotencyRecord release(IdempotencyRecord current, Claim claim, String failure) {
		IdempotencyRecord held = requireHeld(current, claim);
		Instant now = this.clock.latest();
		return new IdempotencyRecord(held.key(), null, held.owner(), held.token(), RecordState.FAILED,
				attemptsAfterRelease(held.attempts(), failure), held.startedAt(), now, 0, null,
				now.plus(this.completedTtl), failure, held.previousAttempt(), held.journal(), held.duplicateSequences(),
				held.audit());
	}

	/**
	 * The attempts a record counts after its claim is released: one less when a routine shutdown
	 * released it, so that shutdowns never use up a key's attempts.
	 * @param attempts the attempts counted while the claim was held
	 * @param failure why the claim is released
	 * @return the attempts to keep
	 */
	public static int attemptsAfterRelease(int attempts, String failure) {
		return IdempotencyStore.RELEASED_BY_SHUTDOWN.equals(failure) ? Math.max(0, attempts - 1) : attempts;
	}

	/**
	 * The record after journaling a step of a held claim.
	 * @param current the stored record
	 * @param claim the claim held
	 * @param step the step's entry, replacing the entry of the same name
	 * @return the record to write
	 * @throws ClaimLostException when the claim is not held any more
	 */
	public IdempotencyRecord recordStep(IdempotencyRecord current, Claim claim, StepRecord step) {
		IdempotencyRecord held = requireHeld(current, claim);
		return new IdempotencyRecord(held.key(), null, held.owner(), held.token(), RecordState.IN_PROGRESS,
				held.attempts(), held.startedAt(), held.leaseUntil(), 0, null,
				this.clock.latest().plus(this.completedTtl), null, held.previousAttempt(), held.journal().with(step),
				held.duplicateSequences(), held.audit());
	}

	/**
	 * The record after journaling several entries of a held claim, in order.
	 * @param current the stored record
	 * @param claim the claim held
	 * @param steps the entries, each replacing the entry of the same name
	 * @return the record to write
	 * @throws ClaimLostException when the claim is not held any more
	 */
	public IdempotencyRecord recordSteps(IdempotencyRecord current, Claim claim, List<StepRecord> steps) {
		IdempotencyRecord next = current;
		for (StepRecord step : steps) {
			next = recordStep(next, claim, step);
		}
		return next;
	}

	/**
	 * The record after noting a duplicate copy on a final record
	 * ({@link IdempotencyStore#recordDuplicate}): everything else, expiry included, as it is.
	 * @param current the stored record, or {@code null}
	 * @param streamSequence the stream sequence of the copy
	 * @return the record to write, or {@code current} itself when there is nothing to write (no
	 * final record that has not expired, or the copy is noted already)
	 */
	public IdempotencyRecord noteDuplicate(IdempotencyRecord current, long streamSequence) {
		if (isExpired(current, now()) || !current.isFinal()) {
			return current;
		}
		return current.withDuplicate(streamSequence);
	}

	/**
	 * The record after an operator's action: appended to the audit; replay and resubmit reopen the
	 * key as a failed attempt with no attempts counted (its next delivery runs it with a fresh
	 * budget), resubmit also empties the step journal. A reopened key's settled copy (the one that
	 * completed or was dead-lettered) joins its noted copies, so reconciliation still accounts for
	 * it. A new token is written every time, so of two operators acting on what they both read, one
	 * succeeds.
	 * @param current the stored record, or {@code null}
	 * @param key the key
	 * @param expectedToken the token of the record the operator read
	 * @param action the action
	 * @return the record to write
	 * @throws RecordChangedException when the record is gone, holds another token or its state does
	 * not allow the action
	 */
	public IdempotencyRecord applyOperatorAction(IdempotencyRecord current, String key, String expectedToken,
			OperatorAction action) {
		if (isExpired(current, this.clock.earliest()) || !current.token().equals(expectedToken)
				|| !action.kind().appliesTo(current.state())) {
			throw new RecordChangedException(key, expectedToken, action.kind());
		}
		List<OperatorAction> audit = new ArrayList<>(current.audit());
		audit.add(action);
		String token = UUID.randomUUID().toString();
		Instant now = this.clock.latest();
		if (!action.kind().reopens()) {
			return new IdempotencyRecord(current.key(), current.listener(), current.owner(), token, current.state(),
					current.attempts(), current.startedAt(), current.leaseUntil(), current.streamSequence(),
					current.completedAt(), now.plus(this.completedTtl), current.resultSummary(),
					current.previousAttempt(), current.journal(), current.duplicateSequences(), audit);
		}
		StepJournal journal = keepsJournal(action) ? current.journal() : StepJournal.EMPTY;
		IdempotencyRecord settled = (current.streamSequence() > 0) ? current.withDuplicate(current.streamSequence())
				: current;
		return new IdempotencyRecord(current.key(), null, current.owner(), token, RecordState.FAILED, 0,
				current.startedAt(), now, 0, null, now.plus(this.completedTtl), reopenedSummary(action),
				current.previousAttempt(), journal, settled.duplicateSequences(), audit);
	}

	/**
	 * Whether the record {@link #applyOperatorAction} writes for an action carries the step journal
	 * of the record it rewrites on as it is stored: every action but a resubmit, which empties it.
	 * Renewals, completions, releases and duplicate notes always do; a step appends to it.
	 * @param action the action
	 * @return {@code true} when the journal is kept
	 */
	public static boolean keepsJournal(OperatorAction action) {
		return !action.kind().clearsJournal();
	}

	/**
	 * The result summary of a key an operator reopened (what its next attempt sees as the previous
	 * attempt's failure).
	 * @param action the action
	 * @return e.g. {@code REPLAY 1 by alice: fixed the parser}
	 */
	public static String reopenedSummary(OperatorAction action) {
		return action.kind() + " " + action.number() + " by " + action.operator() + ": " + action.reason();
	}

	/**
	 * Whether a record is past its expiry and must be treated as absent.
	 * @param record a record or {@code null}
	 * @param now the current time
	 * @return {@code true} when there is no record or it expired
	 */
	public boolean isExpired(IdempotencyRecord record, Instant now) {
		return record == null || !record.expiresAt().isAfter(now);
	}

	/**
	 * A stored record as callers that compare its instants with their own clock read it (listing
	 * in-flight claims, waiting for a holder): its instants moved from the store's clock to this
	 * instance's ({@link StoreClock#toLocal}). The journal's instants are kept as their writers'
	 * clocks gave them.
	 * @param stored a record as the store holds it
	 * @return the record on this instance's clock
	 */
	public IdempotencyRecord onLocalClock(IdempotencyRecord stored) {
		PreviousAttempt previous = stored.previousAttempt();
		PreviousAttempt previousOnLocalClock = (previous != null) ? new PreviousAttempt(previous.owner(),
				toLocal(previous.startedAt()), previous.attempts(), previous.state(), previous.failure(),
				previous.unfinishedStep(), previous.token()) : null;
		return new IdempotencyRecord(stored.key(), stored.listener(), stored.owner(), stored.token(), stored.state(),
				stored.attempts(), toLocal(stored.startedAt()), toLocal(stored.leaseUntil()), stored.streamSequence(),
				toLocal(stored.completedAt()), toLocal(stored.expiresAt()), stored.resultSummary(), previousOnLocalClock,
				stored.journal(), stored.duplicateSequences(), stored.audit());
	}

	private Instant toLocal(Instant storeInstant) {
		return (storeInstant != null) ? this.clock.toLocal(storeInstant) : null;
	}

	/**
	 * The current time of these rules' clock, to judge expiry with: the earliest the store's clock
	 * can read now.
	 * @return now
	 */
	public Instant now() {
		return this.clock.earliest();
	}

	private IdempotencyRecord requireHeld(IdempotencyRecord current, Claim claim) {
		if (current == null || current.state() != RecordState.IN_PROGRESS || !current.token().equals(claim.token())) {
			throw new ClaimLostException(claim.key(), claim.token());
		}
		return current;
	}

}

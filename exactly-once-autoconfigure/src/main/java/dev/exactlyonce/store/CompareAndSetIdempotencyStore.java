package dev.exactlyonce.store;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Base of the stores that read a record and write it back atomically (a compare-and-set, a lock or
 * a transaction), deciding every transition with {@link ClaimRules}. A subclass supplies the atomic
 * read-modify-write of one key, the plain read, and the claim. A write the store applied without
 * the caller learning it (see {@link LandedWrites}, {@link UnconfirmedClaims}) is recognised here,
 * once for every such store.
 */
public abstract class CompareAndSetIdempotencyStore implements IdempotencyStore {

	/** The transition rules. */
	protected final ClaimRules rules;

	private final UnconfirmedClaims unconfirmedClaims = new UnconfirmedClaims();

	/**
	 * Creates the store.
	 * @param rules the claim rules (clock and record TTL)
	 */
	protected CompareAndSetIdempotencyStore(ClaimRules rules) {
		this.rules = rules;
	}

	@Override
	public ClaimResult tryClaim(String key, String owner, Duration lease) {
		String token = this.unconfirmedClaims.token(key, owner);
		return this.unconfirmedClaims.claim(key, owner, token, () -> claim(key, owner, lease, token),
				() -> readRecord(key));
	}

	@Override
	public Claim renew(Claim claim, Duration lease) {
		IdempotencyRecord renewed = LandedWrites.write(
				() -> transition(claim.key(), (current) -> this.rules.renew(current, claim, lease), true),
				() -> readRecord(claim.key()), LandedWrites.renewalOf(claim));
		return claim.withLeaseUntil(renewed.leaseUntil());
	}

	@Override
	public IdempotencyRecord complete(Claim claim, Completion completion) {
		return LandedWrites.write(
				() -> transition(claim.key(), (current) -> this.rules.complete(current, claim, completion), true),
				() -> readRecord(claim.key()), LandedWrites.completionOf(claim, completion));
	}

	@Override
	public void release(Claim claim, String failure) {
		LandedWrites.write(() -> transition(claim.key(), (current) -> this.rules.release(current, claim, failure), true),
				() -> readRecord(claim.key()), LandedWrites.releaseOf(claim));
	}

	@Override
	public void recordStep(Claim claim, StepRecord step) {
		recordSteps(claim, List.of(step));
	}

	@Override
	public void recordSteps(Claim claim, List<StepRecord> steps) {
		transition(claim.key(), (current) -> this.rules.recordSteps(current, claim, steps), false);
	}

	/**
	 * One atomic read-modify-write that ends without a write when the copy is noted already or the
	 * key has no final record.
	 */
	@Override
	public void recordDuplicate(String key, long streamSequence) {
		try {
			transition(key, (current) -> {
				IdempotencyRecord noted = this.rules.noteDuplicate(current, streamSequence);
				if (noted == current) {
					throw new NoteNotWanted();
				}
				return noted;
			}, true);
		}
		catch (RuntimeException ex) {
			if (!isCausedBy(ex, NoteNotWanted.class)) {
				throw ex;
			}
		}
	}

	private static boolean isCausedBy(Throwable ex, Class<? extends Throwable> type) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (type.isInstance(cause)) {
				return true;
			}
		}
		return false;
	}

	@Override
	public IdempotencyRecord recordOperatorAction(String key, String expectedToken, OperatorAction action) {
		return this.rules.onLocalClock(
				transition(key, (current) -> this.rules.applyOperatorAction(current, key, expectedToken, action),
						ClaimRules.keepsJournal(action)));
	}

	@Override
	public Optional<IdempotencyRecord> find(String key) {
		IdempotencyRecord record = readRecord(key);
		return this.rules.isExpired(record, this.rules.now()) ? Optional.empty()
				: Optional.of(this.rules.onLocalClock(record));
	}

	@Override
	public Optional<IdempotencyRecord> findWithoutJournal(String key) {
		IdempotencyRecord record = readRecordWithoutJournal(key);
		return this.rules.isExpired(record, this.rules.now()) ? Optional.empty()
				: Optional.of(this.rules.onLocalClock(record).withJournal(StepJournal.EMPTY));
	}

	/**
	 * Reads the stored record of a key, expired or not, with no more of its journal than is
	 * cheapest to read (the part inside the record, or none).
	 * @param key the key
	 * @return the record, or {@code null} when there is none
	 */
	protected IdempotencyRecord readRecordWithoutJournal(String key) {
		return readRecord(key);
	}

	/**
	 * Claims a key atomically as {@link ClaimRules#claim} decides with {@code token}.
	 * @param key the key
	 * @param owner the claimant
	 * @param lease the lease wanted
	 * @param token the fencing token to write
	 * @return what the store holds for the key
	 */
	protected abstract ClaimResult claim(String key, String owner, Duration lease, String token);

	/**
	 * Replaces the record of a key atomically with what {@code change} makes of it.
	 * @param key the key
	 * @param change the transition; receives the stored record or {@code null}, may throw
	 * {@link ClaimLostException}
	 * @param keepsJournal whether the record {@code change} makes carries the stored record's step
	 * journal on as it is stored (said by the transition, never found by comparing journals): a
	 * store that keeps part of a journal outside the record keeps that part then, and writes any
	 * other journal whole
	 * @return the record written
	 */
	protected abstract IdempotencyRecord transition(String key, UnaryOperator<IdempotencyRecord> change,
			boolean keepsJournal);

	/**
	 * Reads the stored record of a key, expired or not.
	 * @param key the key
	 * @return the record, or {@code null} when there is none
	 */
	protected abstract IdempotencyRecord readRecord(String key);

	/** Ends a transition without a write: the record is no longer one to note a duplicate on. */
	private static final class NoteNotWanted extends RuntimeException {

		NoteNotWanted() {
			super(null, null, false, false);
		}

	}

}

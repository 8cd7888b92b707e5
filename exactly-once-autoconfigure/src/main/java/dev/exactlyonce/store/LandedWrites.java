package dev.exactlyonce.store;

import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Recognises a write the store applied although the caller was not told so: its answer came after
 * the client's timeout, or a retry found the earlier write already there. The store is read back
 * and what it holds is compared with what the write leaves: a fencing token is only ever written
 * by its own claimant, so the token plus the state (and, for a renewal, a lease moved forward)
 * tell the caller's write from anyone else's.
 */
public final class LandedWrites {

	private LandedWrites() {
	}

	/**
	 * Runs a write; when it fails ({@link StoreUnavailableException}: no answer, or
	 * {@link ClaimLostException}: the record no longer matches what the write expected), reads the
	 * record back and returns it if the write had landed, else throws the write's failure.
	 * @param write the write, returning the record it wrote
	 * @param readBack reads the stored record, {@code null} when there is none
	 * @param landed whether a stored record is what the write leaves behind
	 * @return the record written
	 */
	public static IdempotencyRecord write(Supplier<IdempotencyRecord> write, Supplier<IdempotencyRecord> readBack,
			Predicate<IdempotencyRecord> landed) {
		try {
			return write.get();
		}
		catch (StoreUnavailableException | ClaimLostException ex) {
			return readBack(ex, readBack, landed);
		}
	}

	/**
	 * Reads a record back after a failed write: the record if the write had landed, else the write's
	 * failure is thrown (with a failed read-back attached as suppressed).
	 * @param failure why the write failed
	 * @param readBack reads the stored record, {@code null} when there is none
	 * @param landed whether a stored record is what the write leaves behind
	 * @return the stored record, which the write left
	 */
	public static IdempotencyRecord readBack(RuntimeException failure, Supplier<IdempotencyRecord> readBack,
			Predicate<IdempotencyRecord> landed) {
		IdempotencyRecord stored;
		try {
			stored = readBack.get();
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
			throw failure;
		}
		if (stored == null || !landed.test(stored)) {
			throw failure;
		}
		return stored;
	}

	/**
	 * A claim written by {@code owner} with {@code token}, still in progress.
	 * @param owner the claimant
	 * @param token the token the claim was written with
	 * @return the test
	 */
	public static Predicate<IdempotencyRecord> claimOf(String owner, String token) {
		return (stored) -> stored.state() == RecordState.IN_PROGRESS && token.equals(stored.token())
				&& owner.equals(stored.owner());
	}

	/**
	 * The claim, still in progress, with its lease moved past what the caller knew (only the
	 * token's holder renews it).
	 * @param claim the claim renewed
	 * @return the test
	 */
	public static Predicate<IdempotencyRecord> renewalOf(Claim claim) {
		return (stored) -> claimOf(claim.owner(), claim.token()).test(stored)
				&& stored.leaseUntil().isAfter(claim.leaseUntil());
	}

	/**
	 * The claim, completed (or dead-lettered) as {@code completion} says.
	 * @param claim the claim completed
	 * @param completion the completion written
	 * @return the test
	 */
	public static Predicate<IdempotencyRecord> completionOf(Claim claim, Completion completion) {
		return (stored) -> stored.state() == completion.state() && claim.token().equals(stored.token())
				&& stored.streamSequence() == completion.streamSequence();
	}

	/**
	 * The claim, released as failed.
	 * @param claim the claim released
	 * @return the test
	 */
	public static Predicate<IdempotencyRecord> releaseOf(Claim claim) {
		return (stored) -> stored.state() == RecordState.FAILED && claim.token().equals(stored.token());
	}

}

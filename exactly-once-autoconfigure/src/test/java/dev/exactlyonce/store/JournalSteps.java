package dev.exactlyonce.store;

import java.time.Duration;
import java.time.Instant;

/**
 * Steps journaled straight into a store, as the pipeline journals them, for the tests of how stores
 * keep long journals.
 */
public final class JournalSteps {

	/** A step result of a typical size, as the benchmark journals. */
	public static final String RESULT = "\"" + "r".repeat(176) + "\"";

	/** A mebibyte, the largest result every store is tested with. */
	public static final int ONE_MIB = 1024 * 1024;

	private JournalSteps() {
	}

	/**
	 * Claims a fresh key.
	 * @param store the store
	 * @param key the key
	 * @param owner the claimant
	 * @param lease the lease
	 * @return the claim
	 */
	public static Claim acquire(IdempotencyStore store, String key, String owner, Duration lease) {
		return ((ClaimResult.Acquired) store.tryClaim(key, owner, lease)).claim();
	}

	/**
	 * Journals a step: STARTED, then DONE with its result.
	 * @param store the store
	 * @param claim the claim held
	 * @param name the step name
	 * @param result the result as JSON
	 */
	public static void journal(IdempotencyStore store, Claim claim, String name, String result) {
		StepRecord started = StepRecord.started(name, claim.attempt(), claim.token(), Instant.now());
		store.recordStep(claim, started);
		store.recordStep(claim, started.done(result, Instant.now()));
	}

}

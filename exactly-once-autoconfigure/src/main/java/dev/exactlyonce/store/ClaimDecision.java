package dev.exactlyonce.store;

/**
 * The outcome of {@link ClaimRules#claim}: either an answer to return without writing, or a record
 * the store must write atomically (compare-and-set against what it read) before answering.
 *
 * @param toWrite the record to write, or {@code null} when nothing is written
 * @param result the answer to return once the write (if any) succeeded
 * @param keepsJournal whether {@code toWrite} carries the step journal of the record read on as it
 * is stored (a claim taking a task over), not a journal of its own (a claim of a fresh or expired
 * key starts an empty one); a store that keeps part of a journal outside the record keeps that part
 * exactly when this is {@code true}, never by comparing journals; {@code false} when nothing is
 * written
 */
public record ClaimDecision(IdempotencyRecord toWrite, ClaimResult result, boolean keepsJournal) {

	static ClaimDecision answer(ClaimResult result) {
		return new ClaimDecision(null, result, false);
	}

	static ClaimDecision write(IdempotencyRecord record, ClaimResult result, boolean keepsJournal) {
		return new ClaimDecision(record, result, keepsJournal);
	}

	/**
	 * Whether the claim needs the record's whole step journal: only when it acquires a record (a
	 * takeover, which resumes the journal and writes it on). A store that keeps part of a journal
	 * outside the record reads the claim's record without that part, decides, and reads the whole
	 * journal and decides again only when this is {@code true}: every other answer carries no journal.
	 * @return {@code true} for an acquired claim
	 */
	public boolean needsWholeJournal() {
		return this.result instanceof ClaimResult.Acquired;
	}

	/**
	 * Whether the store has to write before answering.
	 * @return {@code true} when {@link #toWrite()} is set
	 */
	public boolean requiresWrite() {
		return this.toWrite != null;
	}

}

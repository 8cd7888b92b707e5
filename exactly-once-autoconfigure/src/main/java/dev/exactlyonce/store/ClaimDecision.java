package dev.exactlyonce.store;

/**
 * The outcome of {@link ClaimRules#claim}: either an answer to return without writing, or a record
 * the store must write atomically (compare-and-set against what it read) before answering.
 *
 * @param toWrite the record to write, or {@code null} when nothing is written
 * @param result the answer to return once the write (if any) succeeded
 */
public record ClaimDecision(IdempotencyRecord toWrite, ClaimResult result) {

	static ClaimDecision answer(ClaimResult result) {
		return new ClaimDecision(null, result);
	}

	static ClaimDecision write(IdempotencyRecord record, ClaimResult result) {
		return new ClaimDecision(record, result);
	}

	/**
	 * Whether the store has to write before answering.
	 * @return {@code true} when {@link #toWrite()} is set
	 */
	public boolean requiresWrite() {
		return this.toWrite != null;
	}

}

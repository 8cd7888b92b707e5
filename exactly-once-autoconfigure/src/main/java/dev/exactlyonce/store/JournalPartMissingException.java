package dev.exactlyonce.store;

/**
 * Thrown when a record names a sealed part of its step journal ({@link SealedJournal}) that its store
 * no longer holds: the part expired ({@code completed-ttl} after it was written) before the record
 * that names it. The task cannot be resumed with its journal; {@link #record()} is the record with
 * the part of its journal it still holds, enough to discard or resubmit the task.
 */
public class JournalPartMissingException extends StoreUnavailableException {

	private final transient IdempotencyRecord record;

	/**
	 * Creates the exception.
	 * @param message the missing part, and the fix
	 */
	public JournalPartMissingException(String message) {
		this(message, null);
	}

	private JournalPartMissingException(String message, IdempotencyRecord record) {
		super(message, null);
		this.record = record;
	}

	/**
	 * This exception about a record.
	 * @param partial the record, with the part of its journal the store still holds
	 * @return the exception
	 */
	public JournalPartMissingException about(IdempotencyRecord partial) {
		return new JournalPartMissingException(getMessage(), partial);
	}

	/**
	 * The record whose journal lost a part.
	 * @return the record, with the part of its journal the store still holds, or {@code null}
	 */
	public IdempotencyRecord record() {
		return this.record;
	}

}

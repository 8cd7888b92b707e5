package dev.exactlyonce.store;

/**
 * Thrown when a record would exceed the size a store can keep under one key, typically because its
 * step journal grew too large. Retrying does not help: journal smaller step results (a reference
 * to the output kept elsewhere) or fewer steps.
 */
public class RecordTooLargeException extends IllegalStateException {

	/**
	 * Creates the exception.
	 * @param key the key whose record is too large
	 * @param size the record's size in bytes
	 * @param limit the largest record the store keeps, in bytes
	 */
	public RecordTooLargeException(String key, long size, long limit) {
		super("Idempotency record of key '" + key + "' would be " + size + " bytes, above the " + limit
				+ " bytes the store keeps under one key; journal a reference to large step results instead of the "
				+ "results");
	}

}

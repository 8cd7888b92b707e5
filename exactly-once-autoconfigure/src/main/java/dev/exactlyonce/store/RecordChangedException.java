package dev.exactlyonce.store;

/**
 * Thrown when an {@link OperatorAction} finds the record other than the operator read it: another
 * operator or instance acted first, an attempt claimed it, or its state does not allow the action.
 * Read the record again and decide on what it holds now.
 */
public class RecordChangedException extends ClaimLostException {

	/**
	 * Creates the exception.
	 * @param key the key
	 * @param expectedToken the token the caller read
	 * @param kind the action refused
	 */
	public RecordChangedException(String key, String expectedToken, OperatorAction.Kind kind) {
		super("Record of key '" + key + "' changed since it was read (token " + expectedToken + "), or its state "
				+ "does not allow " + kind + ": read it again");
	}

}

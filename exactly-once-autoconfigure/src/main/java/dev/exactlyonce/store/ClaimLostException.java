package dev.exactlyonce.store;

/**
 * Thrown when a claim is no longer held by the caller's fencing token: its lease ran out and
 * another worker took it over, or the key was completed meanwhile.
 */
public class ClaimLostException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param key the key whose claim was lost
	 * @param token the token that no longer holds it
	 */
	public ClaimLostException(String key, String token) {
		super("Claim on key '" + key + "' with token " + token + " is no longer held (lease lost to another worker)");
	}

	/**
	 * Creates the exception with a message of a subclass.
	 * @param message the message
	 */
	protected ClaimLostException(String message) {
		super(message);
	}

}

package dev.exactlyonce.store;

/**
 * Thrown when the idempotency store cannot answer; callers must treat the key's state as unknown.
 */
public class StoreUnavailableException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message what failed, without payloads or secrets
	 * @param cause the store client's exception
	 */
	public StoreUnavailableException(String message, Throwable cause) {
		super(message, cause);
	}

}

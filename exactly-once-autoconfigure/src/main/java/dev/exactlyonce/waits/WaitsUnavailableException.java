package dev.exactlyonce.waits;

import dev.exactlyonce.store.StoreUnavailableException;

/**
 * NATS did not answer a request of the durable waits (their bucket or their stream): nothing is
 * decided; ask again.
 */
public class WaitsUnavailableException extends StoreUnavailableException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message what was not done, and why
	 * @param cause the cause
	 */
	public WaitsUnavailableException(String message, Throwable cause) {
		super(message, cause);
	}

}

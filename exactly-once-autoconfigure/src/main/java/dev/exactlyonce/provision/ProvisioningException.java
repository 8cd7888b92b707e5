package dev.exactlyonce.provision;

/**
 * Thrown at start-up when a declared stream or consumer cannot be made to match the server.
 */
public class ProvisioningException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message what differs, which property declares it and how to fix it
	 * @param cause the server's error, or {@code null}
	 */
	public ProvisioningException(String message, Throwable cause) {
		super(message, cause);
	}

}

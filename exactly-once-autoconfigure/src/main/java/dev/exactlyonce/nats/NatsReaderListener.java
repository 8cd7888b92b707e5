package dev.exactlyonce.nats;

/**
 * Told when the NATS connection's reader stopped on a message it could not decode and when the
 * connection reads again. Declare beans of this type; implementations must not throw.
 */
public interface NatsReaderListener {

	/**
	 * Called when the reader stopped on a failure (a message it could not decode); a reconnect
	 * follows at once.
	 * @param failure what stopped it
	 */
	default void readerFailed(Throwable failure) {
	}

	/** Called once the connection was reconnected after a reader failure and reads again. */
	default void readerRestarted() {
	}

}

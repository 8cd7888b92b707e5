package dev.exactlyonce.audit;

import java.util.Optional;

import dev.exactlyonce.nats.RawStreamMessage;

/**
 * Resolves the idempotency key of a message read back from its stream, as the listener on its
 * consumer resolves it, so the reconciliation can match a copy of a key to that key's record.
 */
@FunctionalInterface
public interface MessageKeys {

	/** Resolves no key: messages are matched to records by stream sequence only. */
	MessageKeys NONE = (consumer, message) -> Optional.empty();

	/**
	 * The key the store keeps the message's record under (with the listener's namespace).
	 * @param consumer the consumer the message belongs to
	 * @param message the message as stored on the stream, headers not yet parsed
	 * @return the key, or empty when it cannot be resolved (no listener, no key)
	 */
	Optional<String> storeKey(String consumer, RawStreamMessage message);

}

package dev.exactlyonce.audit;

import java.time.Instant;

/**
 * What the dead-letter stream says about one parked message (read from its headers only).
 *
 * @param stream the stream the message came from
 * @param consumer the consumer that gave up on it
 * @param streamSequence its sequence in that stream
 * @param key its idempotency key, or {@code null}
 * @param reason why it was parked
 * @param at when it was parked
 */
public record DeadLetterEntry(String stream, String consumer, long streamSequence, String key, String reason,
		Instant at) {
}

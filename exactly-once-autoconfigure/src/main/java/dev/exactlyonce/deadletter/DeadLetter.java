package dev.exactlyonce.deadletter;

import io.nats.client.Message;

/**
 * A message to park in a dead-letter subject and why.
 *
 * @param original the message as delivered or read back from the stream; its payload is kept byte
 * for byte
 * @param subject the dead-letter subject
 * @param stream the stream it came from
 * @param consumer the consumer that gave up on it
 * @param streamSequence its stream sequence
 * @param deliveries how many times it was delivered
 * @param key its idempotency key, or {@code null} when none could be resolved
 * @param reason the rule broken or failure, in a few words
 * @param failure the exception that caused it, or {@code null}
 */
public record DeadLetter(Message original, String subject, String stream, String consumer, long streamSequence,
		long deliveries, String key, String reason, Throwable failure) {
}

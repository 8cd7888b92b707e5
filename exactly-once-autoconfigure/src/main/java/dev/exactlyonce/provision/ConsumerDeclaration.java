package dev.exactlyonce.provision;

import java.time.Duration;
import java.util.List;

/**
 * A durable pull consumer as the application declares it to the server; acks are always explicit.
 *
 * @param name the durable name
 * @param stream the stream the consumer reads, or {@code null} when none is declared
 * @param filterSubject the subject filter, or {@code null} for the whole stream
 * @param ackWait how long the server waits for an ack before redelivering
 * @param maxDeliver the most deliveries of one message
 * @param backoff the redelivery delays per attempt (may be empty)
 * @param maxAckPending the most unacknowledged messages
 * @param deliverPolicy where a new consumer starts reading
 */
public record ConsumerDeclaration(String name, String stream, String filterSubject, Duration ackWait,
		long maxDeliver, List<Duration> backoff, long maxAckPending, DeliverFrom deliverPolicy) {

	public ConsumerDeclaration {
		backoff = (backoff != null) ? List.copyOf(backoff) : List.of();
	}

}

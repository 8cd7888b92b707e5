package dev.exactlyonce.operations;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;

import dev.exactlyonce.deadletter.DeadLetterPublisher;
import dev.exactlyonce.nats.HeaderEncoding;

/**
 * One dead letter, as its {@code Exactly-Once-*} headers describe it.
 *
 * @param sequence its sequence in the dead-letter stream (what replay and discard take)
 * @param originalSubject the subject the task was published on
 * @param stream the stream it came from
 * @param streamSequence its sequence in that stream
 * @param key its idempotency key (without namespace), or {@code null} when none was resolved
 * @param reason why it was parked
 * @param exception the exception class, or {@code null}
 * @param exceptionMessage the exception's message (at most 4096 characters), or {@code null}
 * @param deliveries how many times it was delivered, or {@code null} when unknown
 * @param at when it was parked
 * @param payload the payload as UTF-8 text, only with {@code exactlyonce.operations.show-payloads}; else {@code null}
 */
public record DeadLetterView(long sequence, String originalSubject, String stream, long streamSequence, String key,
		String reason, String exception, String exceptionMessage, Long deliveries, Instant at, String payload) {

	/**
	 * The view of a dead letter.
	 * @param message the dead letter as stored
	 * @param showPayload whether to include its payload
	 * @return the view
	 */
	public static DeadLetterView of(MessageInfo message, boolean showPayload) {
		Headers headers = (message.getHeaders() != null) ? message.getHeaders() : new Headers();
		String sequence = header(headers, "Stream-Sequence");
		String deliveries = header(headers, "Deliveries");
		String timestamp = header(headers, "Timestamp");
		byte[] data = message.getData();
		return new DeadLetterView(message.getSeq(), header(headers, "Original-Subject"), header(headers, "Stream"),
				(sequence != null) ? Long.parseLong(sequence) : 0, header(headers, "Key"), header(headers, "Reason"),
				header(headers, "Exception"), header(headers, "Exception-Message"),
				(deliveries != null) ? Long.valueOf(deliveries) : null,
				(timestamp != null) ? Instant.parse(timestamp) : message.getTime().toInstant(),
				(showPayload && data != null) ? new String(data, StandardCharsets.UTF_8) : null);
	}

	private static String header(Headers headers, String name) {
		return HeaderEncoding.first(headers, DeadLetterPublisher.HEADER_PREFIX + name);
	}

}

package dev.exactlyonce.deadletter;

import java.io.IOException;
import java.time.Clock;

import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;

/**
 * Publishes dead letters to JetStream: the original payload byte for byte, the original headers
 * (except the {@code Nats-*} instructions to the original stream), and {@code Exactly-Once-*} headers saying where it came from and why it was parked. A dead letter
 * carries the message id {@code dl-<stream>-<sequence>}, so parking the same message twice stores
 * it once.
 */
public class DeadLetterPublisher {

	/** Header prefix of every dead-letter header. */
	public static final String HEADER_PREFIX = "Exactly-Once-";

	private static final int MAX_EXCEPTION_MESSAGE = 512;

	private final JetStream jetStream;

	private final Clock clock;

	/**
	 * Creates the publisher.
	 * @param jetStream the JetStream context to publish with
	 * @param clock the clock of the timestamp header
	 */
	public DeadLetterPublisher(JetStream jetStream, Clock clock) {
		this.jetStream = jetStream;
		this.clock = clock;
	}

	/**
	 * Stores a dead letter.
	 * @param deadLetter what to park and why
	 * @return the dead letter's sequence in the dead-letter stream
	 * @throws DeadLetterException when no stream stored it (then the original must not be dropped)
	 */
	public long publish(DeadLetter deadLetter) {
		Headers headers = new Headers(deadLetter.original().getHeaders());
		withoutServerDirectives(headers);
		headers.put(HEADER_PREFIX + "Original-Subject", deadLetter.original().getSubject());
		headers.put(HEADER_PREFIX + "Stream", deadLetter.stream());
		headers.put(HEADER_PREFIX + "Consumer", deadLetter.consumer());
		headers.put(HEADER_PREFIX + "Stream-Sequence", Long.toString(deadLetter.streamSequence()));
		headers.put(HEADER_PREFIX + "Deliveries", Long.toString(deadLetter.deliveries()));
		headers.put(HEADER_PREFIX + "Reason", deadLetter.reason());
		headers.put(HEADER_PREFIX + "Timestamp", this.clock.instant().toString());
		if (deadLetter.key() != null) {
			headers.put(HEADER_PREFIX + "Key", deadLetter.key());
		}
		if (deadLetter.failure() != null) {
			headers.put(HEADER_PREFIX + "Exception", deadLetter.failure().getClass().getName());
			headers.put(HEADER_PREFIX + "Exception-Message", truncate(String.valueOf(deadLetter.failure().getMessage())));
		}
		NatsMessage message = NatsMessage.builder()
			.subject(deadLetter.subject())
			.headers(headers)
			.data(deadLetter.original().getData())
			.build();
		String messageId = "dl-" + deadLetter.stream() + "-" + deadLetter.streamSequence();
		try {
			PublishAck ack = this.jetStream.publish(message, PublishOptions.builder().messageId(messageId).build());
			return ack.getSeqno();
		}
		catch (IOException | JetStreamApiException ex) {
			throw new DeadLetterException("No stream stored the dead letter on '" + deadLetter.subject()
					+ "' for stream '" + deadLetter.stream() + "', sequence " + deadLetter.streamSequence() + ": "
					+ ex.getMessage() + ". Declare a stream for it (exactlyonce.dead-letter.stream) or change "
					+ "exactlyonce.consumers." + deadLetter.consumer() + ".dead-letter-subject.", ex);
		}
	}

	/**
	 * Drops the {@code Nats-*} headers (message id, expected stream, expected sequences, rollup...):
	 * they are instructions to the stream that stored the original, and the dead-letter stream
	 * would refuse or misread them.
	 */
	private static void withoutServerDirectives(Headers headers) {
		for (String name : new java.util.ArrayList<>(headers.keySet())) {
			if (name.regionMatches(true, 0, "Nats-", 0, 5)) {
				headers.remove(name);
			}
		}
	}

	private static String truncate(String text) {
		String singleLine = text.replace('\r', ' ').replace('\n', ' ');
		return (singleLine.length() > MAX_EXCEPTION_MESSAGE) ? singleLine.substring(0, MAX_EXCEPTION_MESSAGE) : singleLine;
	}

}

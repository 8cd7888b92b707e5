package dev.exactlyonce.deadletter;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;

import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.nats.ServerDirectives;

/**
 * Publishes dead letters to JetStream: the original payload byte for byte, the original headers
 * (except the {@code Nats-*} instructions to the original stream), and {@code Exactly-Once-*} headers saying where it came from and why it was parked. A dead letter
 * carries the message id {@code dl-<stream>-<sequence>}, so parking the same message twice stores
 * it once. Header values the Java client cannot write (a key or an exception message that is not
 * printable US-ASCII) are percent-encoded as {@link HeaderEncoding} describes. A dead letter must
 * fit the size limit (headers plus body): the optional headers the starter adds are dropped (and
 * named in {@code Exactly-Once-Trimmed}) until it fits; when the original alone does not, it is
 * not published and the original stays on its stream.
 */
public class DeadLetterPublisher {

	/** Header prefix of every dead-letter header. */
	public static final String HEADER_PREFIX = "Exactly-Once-";

	/** Names the starter's headers dropped to make the dead letter fit the size limit. */
	public static final String TRIMMED = HEADER_PREFIX + "Trimmed";

	private static final String MESSAGE_ID = "Nats-Msg-Id";

	private static final int MAX_TEXT = 512;

	/** The starter's headers a dead letter can do without, dropped in this order when it is too large. */
	private static final List<String> OPTIONAL = List.of(HEADER_PREFIX + "Exception-Message", HEADER_PREFIX + "Key",
			HEADER_PREFIX + "Exception", HEADER_PREFIX + "Timestamp", HEADER_PREFIX + "Deliveries");

	private final JetStream jetStream;

	private final DeadLetterSizeLimit sizeLimit;

	private final Clock clock;

	/**
	 * Creates the publisher.
	 * @param jetStream the JetStream context to publish with
	 * @param sizeLimit the largest dead letter the server takes on a subject
	 * @param clock the clock of the timestamp header
	 */
	public DeadLetterPublisher(JetStream jetStream, DeadLetterSizeLimit sizeLimit, Clock clock) {
		this.jetStream = jetStream;
		this.sizeLimit = sizeLimit;
		this.clock = clock;
	}

	/**
	 * Stores a dead letter.
	 * @param deadLetter what to park and why
	 * @return the dead letter's sequence in the dead-letter stream
	 * @throws DeadLetterException when no stream stored it, or it cannot fit the size limit (then
	 * the original must not be dropped)
	 */
	public long publish(DeadLetter deadLetter) {
		NatsMessage message = NatsMessage.builder()
			.subject(deadLetter.subject())
			.headers(fitting(headers(deadLetter), deadLetter))
			.data(deadLetter.original().getData())
			.build();
		try {
			PublishAck ack = this.jetStream.publish(message);
			return ack.getSeqno();
		}
		catch (IOException | JetStreamApiException ex) {
			throw new DeadLetterException("No stream stored the dead letter on '" + deadLetter.subject()
					+ "' for stream '" + deadLetter.stream() + "', sequence " + deadLetter.streamSequence() + ": "
					+ ex.getMessage() + ". Declare a stream for it (exactlyonce.dead-letter.stream) or change "
					+ "exactlyonce.consumers." + deadLetter.consumer() + ".dead-letter-subject.", ex);
		}
		catch (RuntimeException ex) {
			throw new DeadLetterException("The NATS client refused the dead letter on '" + deadLetter.subject()
					+ "' for stream '" + deadLetter.stream() + "', consumer '" + deadLetter.consumer() + "', sequence "
					+ deadLetter.streamSequence() + ": " + ex.getMessage(), ex);
		}
	}

	private Headers headers(DeadLetter deadLetter) {
		Headers headers = new Headers(deadLetter.original().getHeaders());
		ServerDirectives.remove(headers);
		HeaderEncoding.put(headers, MESSAGE_ID, "dl-" + deadLetter.stream() + "-" + deadLetter.streamSequence());
		HeaderEncoding.put(headers, HEADER_PREFIX + "Original-Subject", deadLetter.original().getSubject());
		HeaderEncoding.put(headers, HEADER_PREFIX + "Stream", deadLetter.stream());
		HeaderEncoding.put(headers, HEADER_PREFIX + "Consumer", deadLetter.consumer());
		HeaderEncoding.put(headers, HEADER_PREFIX + "Stream-Sequence", Long.toString(deadLetter.streamSequence()));
		if (deadLetter.deliveries() > 0) {
			HeaderEncoding.put(headers, HEADER_PREFIX + "Deliveries", Long.toString(deadLetter.deliveries()));
		}
		HeaderEncoding.put(headers, HEADER_PREFIX + "Reason", truncate(deadLetter.reason()));
		HeaderEncoding.put(headers, HEADER_PREFIX + "Timestamp", this.clock.instant().toString());
		if (deadLetter.key() != null) {
			HeaderEncoding.put(headers, HEADER_PREFIX + "Key", deadLetter.key());
		}
		if (deadLetter.failure() != null) {
			HeaderEncoding.put(headers, HEADER_PREFIX + "Exception", deadLetter.failure().getClass().getName());
			HeaderEncoding.put(headers, HEADER_PREFIX + "Exception-Message",
					truncate(String.valueOf(deadLetter.failure().getMessage())));
		}
		return headers;
	}

	/** Drops optional headers until the dead letter fits; fails when it cannot. */
	private Headers fitting(Headers headers, DeadLetter deadLetter) {
		DeadLetterSizeLimit.Limit limit = this.sizeLimit.forSubject(deadLetter.subject());
		int body = (deadLetter.original().getData() != null) ? deadLetter.original().getData().length : 0;
		List<String> dropped = new ArrayList<>();
		for (String optional : OPTIONAL) {
			if (headers.serializedLength() + body <= limit.bytes()) {
				break;
			}
			if (headers.containsKey(optional)) {
				HeaderEncoding.remove(headers, optional);
				dropped.add(optional);
				HeaderEncoding.put(headers, TRIMMED, String.join(",", dropped));
			}
		}
		long size = headers.serializedLength() + body;
		if (size > limit.bytes()) {
			throw new DeadLetterException("Message at stream '" + deadLetter.stream() + "', consumer '"
					+ deadLetter.consumer() + "', sequence " + deadLetter.streamSequence()
					+ " does not fit in a dead letter: its body (" + body + " bytes) with its headers and the required "
					+ "dead-letter headers make " + size + " bytes, above the limit of " + limit.bytes() + " bytes on '"
					+ deadLetter.subject() + "' (" + limit.source() + "). It stays on "
					+ "its stream. Raise max_payload in the nats-server configuration (and the dead-letter stream's "
					+ "max_msg_size if set), or publish a reference to the data instead of the data.", null);
		}
		return headers;
	}

	private static String truncate(String text) {
		String singleLine = text.replace('\r', ' ').replace('\n', ' ');
		return (singleLine.length() > MAX_TEXT) ? singleLine.substring(0, MAX_TEXT) : singleLine;
	}

}

package dev.exactlyonce.deadletter;

import java.io.IOException;
import java.time.Clock;

import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.NatsMessage;

import dev.exactlyonce.nats.HeaderEncoding;

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
			.headers(DeadLetterHeaders.of(deadLetter, this.clock.instant(), this.sizeLimit.forSubject(deadLetter.subject())))
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

}

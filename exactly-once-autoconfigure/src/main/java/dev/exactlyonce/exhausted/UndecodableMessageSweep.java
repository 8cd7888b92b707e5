package dev.exactlyonce.exhausted;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.RetentionPolicy;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.nats.RawStreamMessage;
import dev.exactlyonce.nats.RawStreamReader;

/**
 * Finds and dead-letters a consumer's delivered messages whose headers the Java client cannot
 * decode, after such a message stopped the connection's reader. The failure does not say which
 * message it was, but it was delivered and not acknowledged: it lies between the consumer's ack
 * floor and its last delivered stream sequence. Those messages (on the consumer's filter subject)
 * are read through the raw message API and every one the client cannot decode is parked at once,
 * then removed from a WorkQueue stream or terminated on any other, so that no redelivery stops the
 * reader again. Messages not yet delivered are found the same way when their turn comes.
 */
public final class UndecodableMessageSweep {

	private static final Log logger = LogFactory.getLog(UndecodableMessageSweep.class);

	/** The most messages one sweep reads; beyond them the MAX_DELIVERIES advisory still parks them. */
	private static final int MAX_MESSAGES_READ = 1000;

	private final Connection connection;

	private final String stream;

	private final String consumer;

	private final RawStreamReader reader;

	private final ExhaustedMessages parking;

	/**
	 * Creates the sweep of one consumer.
	 * @param connection the connection
	 * @param stream the consumer's stream
	 * @param consumer the durable consumer
	 * @param reader reads the stream's messages
	 * @param parking dead-letters what is found
	 */
	public UndecodableMessageSweep(Connection connection, String stream, String consumer, RawStreamReader reader,
			ExhaustedMessages parking) {
		this.connection = connection;
		this.stream = stream;
		this.consumer = consumer;
		this.reader = reader;
		this.parking = parking;
	}

	/** Sweeps once; logs and gives up on any failure (the advisory path remains). */
	public void sweep() {
		try {
			JetStreamManagement management = this.connection.jetStreamManagement();
			ConsumerInfo info = management.getConsumerInfo(this.stream, this.consumer);
			String filter = info.getConsumerConfiguration().getFilterSubject();
			boolean workQueue = management.getStreamInfo(this.stream).getConfiguration()
				.getRetentionPolicy() == RetentionPolicy.WorkQueue;
			long last = info.getDelivered().getStreamSequence();
			long sequence = info.getAckFloor().getStreamSequence() + 1;
			for (int read = 0; sequence <= last && read < MAX_MESSAGES_READ; read++) {
				Optional<RawStreamMessage> next = this.reader.next(this.stream, sequence,
						(filter != null && !filter.isEmpty()) ? filter : ">");
				if (next.isEmpty() || next.get().sequence() > last) {
					return;
				}
				if (!next.get().decodableByClient()) {
					park(next.get(), workQueue);
				}
				sequence = next.get().sequence() + 1;
			}
			if (sequence <= last) {
				logger.warn("Consumer '" + this.consumer + "' on stream '" + this.stream
						+ "': looked at " + MAX_MESSAGES_READ + " unacknowledged messages for headers the Java client "
						+ "cannot decode and stopped at sequence " + sequence + "; any further one is dead-lettered "
						+ "when its deliveries run out");
			}
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			logger.error("Consumer '" + this.consumer + "' on stream '" + this.stream
					+ "': could not look for the message whose headers the Java client cannot decode (" + ex.getMessage()
					+ "); it is dead-lettered when its deliveries run out (max-deliver)");
		}
	}

	private void park(RawStreamMessage message, boolean workQueue) throws IOException, JetStreamApiException {
		logger.error("Message at stream '" + this.stream + "', consumer '" + this.consumer
				+ "', sequence " + message.sequence() + " has headers the Java client cannot decode; dead-lettering it");
		if (this.parking.parkUndecodable(message) && !workQueue) {
			terminate(message.sequence());
		}
	}

	/**
	 * Terminates the delivery of a sequence with the consumer's ack subject, whose layout is
	 * {@code $JS.ACK.<stream>.<consumer>.<delivery count>.<stream seq>.<consumer seq>.<time>.<pending>}
	 * (NATS ADR-15): the server finds the delivery by stream sequence, and a consumer sequence of 0
	 * never moves its ack floor.
	 */
	private void terminate(long sequence) {
		this.connection.publish("$JS.ACK." + this.stream + "." + this.consumer + ".1." + sequence
				+ ".0.0.0", "+TERM".getBytes(StandardCharsets.US_ASCII));
	}

}

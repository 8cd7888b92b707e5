package dev.exactlyonce.exhausted;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StreamInfo;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.listener.logging.RateLimitedLog;
import dev.exactlyonce.nats.RawStreamMessage;
import dev.exactlyonce.nats.RawStreamReader;

/**
 * Finds the messages of a consumer on a WorkQueue stream that ran out of deliveries without being
 * settled, and hands each to its {@link ExhaustedMessages}. The server announces such a message once
 * (its {@code MAX_DELIVERIES} advisory), to one instance: an advisory lost to an instance that was
 * stopping, or a decision that was waiting in the memory of an instance that stopped, would leave
 * the message on the stream for ever, with nothing pending or ack-pending. The consumer never
 * delivers such a message again, and every message it still may deliver is either above its last
 * delivered sequence or ack-pending: so a message still on the stream (on the consumer's filter)
 * at or below the ack floor, or at or below the last delivered sequence when nothing is
 * ack-pending, is exhausted. Other retention policies keep settled messages, so they are not swept.
 */
public final class ExhaustedMessageSweep {

	/**
	 * How often every consumer is swept. A sweep with nothing to find costs three requests (stream
	 * info, consumer info, one message read).
	 */
	public static final Duration INTERVAL = Duration.ofSeconds(10);

	/** The most messages one sweep reads; the next sweep goes on with the rest. */
	private static final int MAX_MESSAGES_READ = 1000;

	private static final Log logger = LogFactory.getLog(ExhaustedMessageSweep.class);

	private final Connection connection;

	private final String stream;

	private final String consumerName;

	private final long maxDeliver;

	private final RawStreamReader reader;

	private final ExhaustedMessages exhausted;

	private final RateLimitedLog failures = new RateLimitedLog(logger, Duration.ofMinutes(1));

	/**
	 * Creates the sweep of one consumer.
	 * @param connection the connection
	 * @param stream the consumer's stream
	 * @param consumer the durable consumer
	 * @param maxDeliver the consumer's max-deliver ({@code -1} for unlimited: nothing is swept)
	 * @param reader reads the stream's messages
	 * @param exhausted settles what is found
	 */
	public ExhaustedMessageSweep(Connection connection, String stream, String consumer, long maxDeliver,
			RawStreamReader reader, ExhaustedMessages exhausted) {
		this.connection = connection;
		this.stream = stream;
		this.consumerName = consumer;
		this.maxDeliver = maxDeliver;
		this.reader = reader;
		this.exhausted = exhausted;
	}

	/** Sweeps once; never throws (a failed sweep is logged at most once a minute and tried next time). */
	public void sweep() {
		try {
			if (this.maxDeliver > 0) {
				sweepWorkQueue();
			}
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			this.failures.warn(() -> "Consumer '" + this.consumerName + "' on stream '" + this.stream
					+ "': could not look for messages that ran out of deliveries (" + ex.getMessage()
					+ "); trying again in " + INTERVAL);
		}
	}

	private void sweepWorkQueue() throws IOException, JetStreamApiException {
		JetStreamManagement management = this.connection.jetStreamManagement();
		StreamInfo stream = management.getStreamInfo(this.stream);
		if (stream.getConfiguration().getRetentionPolicy() != RetentionPolicy.WorkQueue) {
			return;
		}
		ConsumerInfo consumer = management.getConsumerInfo(this.stream, this.consumerName);
		long last = (consumer.getNumAckPending() == 0) ? consumer.getDelivered().getStreamSequence()
				: consumer.getAckFloor().getStreamSequence();
		String filter = consumer.getConsumerConfiguration().getFilterSubject();
		String subjects = (filter != null && !filter.isEmpty()) ? filter : ">";
		long sequence = Math.max(1, stream.getStreamState().getFirstSequence());
		for (int read = 0; sequence <= last; read++) {
			if (read == MAX_MESSAGES_READ) {
				this.failures.warn(() -> "Consumer '" + this.consumerName + "' on stream '"
						+ this.stream + "': more than " + MAX_MESSAGES_READ + " messages ran out of "
						+ "deliveries; the next sweeps settle the rest");
				return;
			}
			Optional<RawStreamMessage> next = this.reader.next(this.stream, sequence, subjects);
			if (next.isEmpty() || next.get().sequence() > last) {
				return;
			}
			this.exhausted.settleFound(next.get().sequence());
			sequence = next.get().sequence() + 1;
		}
	}

}

package dev.exactlyonce.takeover;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.api.ConsumerInfo;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Naks a message another connection received: acks are messages to the consumer's ack subject,
 * which the server takes from any connection. The subject is the one the server gives a delivery
 * ({@code $JS.ACK.<stream>.<consumer>.<delivery count>.<stream seq>.<consumer seq>.<time>.<pending>});
 * the server finds the message by its stream sequence among the consumer's pending ones and checks
 * the consumer sequence only against the range it delivered, so the consumer's last delivered
 * sequence stands in for the one the dead connection got. A message no longer pending is left alone
 * by the server.
 */
final class PendingMessages {

	private static final Log logger = LogFactory.getLog(PendingMessages.class);

	private static final byte[] NAK = "-NAK".getBytes(StandardCharsets.US_ASCII);

	private final Connection connection;

	private final Duration timeout;

	PendingMessages(Connection connection, Duration timeout) {
		this.connection = connection;
		this.timeout = timeout;
	}

	/**
	 * Asks the server to redeliver tasks' messages now (one consumer look-up per consumer); a message
	 * that cannot be nak'd is redelivered after its ack wait.
	 * @param tasks the tasks
	 */
	void nak(List<RunningTask> tasks) {
		Map<String, List<RunningTask>> byConsumer = tasks.stream()
			.collect(Collectors.groupingBy((task) -> task.stream() + "." + task.consumer()));
		try {
			JetStreamManagement management = this.connection
				.jetStreamManagement(JetStreamOptions.builder().requestTimeout(this.timeout).build());
			for (List<RunningTask> ofConsumer : byConsumer.values()) {
				RunningTask first = ofConsumer.get(0);
				ConsumerInfo info = management.getConsumerInfo(first.stream(), first.consumer());
				long delivered = info.getDelivered().getConsumerSequence();
				for (RunningTask task : ofConsumer) {
					this.connection.publish("$JS.ACK." + task.stream() + "." + task.consumer() + "." + task.deliveryCount()
							+ "." + task.streamSequence() + "." + delivered + ".0.0", NAK);
				}
			}
			this.connection.flush(this.timeout);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			logger.info("Messages of " + byConsumer.keySet() + " not all nak'd (they are redelivered after their ack "
					+ "wait): " + ex);
		}
	}

}

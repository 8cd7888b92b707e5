package dev.exactlyonce.waits;

import java.io.IOException;
import java.time.Duration;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * Creates or checks the tickets' stream and its consumer: a Limits stream on
 * {@code <subject-prefix>.>} keeping one ticket per subject (so per task) for {@code keepFor}, closed
 * to purges, with a duplicate window of two minutes, or {@code keepFor} when shorter (the server
 * refuses a window longer than the stream's max age; a ticket published twice by one attempt is
 * stored once); a durable pull consumer with explicit acks, no delivery limit (a ticket is looked at again
 * until its wait ends), {@code max-waiting} ack slots (every waiting task's ticket holds one) and an ack
 * wait of {@link #TICKET_ACK_WAIT}: the timer sends working acks while it holds a ticket, so a ticket
 * held by an instance that died comes back within that time. A consumer made with another ack wait
 * (earlier builds made it with 1 minute) is updated in {@code create-or-update} mode and kept as it is,
 * with a warning, in the others.
 */
final class WaitsProvisioner {

	/** The ack wait of the tickets' consumer. */
	static final Duration TICKET_ACK_WAIT = Duration.ofSeconds(10);

	private static final Log logger = LogFactory.getLog(WaitsProvisioner.class);

	private static final Duration DUPLICATE_WINDOW = Duration.ofMinutes(2);

	private static final int NOT_FOUND = 10059;

	private static final int CONSUMER_NOT_FOUND = 10014;

	private final JetStreamManagement management;

	private final WaitsSettings settings;

	WaitsProvisioner(Connection connection, WaitsSettings settings) throws IOException {
		this.management = connection
			.jetStreamManagement(JetStreamOptions.builder().requestTimeout(settings.requestTimeout()).build());
		this.settings = settings;
	}

	/**
	 * Creates or updates the stream and the consumer, or checks that they exist.
	 * @param keepFor how long tickets are kept
	 * @return the consumer's ack wait on the server, which the timer's working acks must beat
	 */
	Duration provision(Duration keepFor) throws IOException, JetStreamApiException {
		StreamConfiguration stream = StreamConfiguration.builder()
			.name(this.settings.stream())
			.description("exactly-once: the tickets of tasks suspended at a durable wait")
			.subjects(this.settings.subjectPrefix() + ".>")
			.retentionPolicy(RetentionPolicy.Limits)
			.storageType(StorageType.File)
			.maxMessagesPerSubject(1)
			.maxAge(keepFor)
			.duplicateWindow((keepFor.compareTo(DUPLICATE_WINDOW) < 0) ? keepFor : DUPLICATE_WINDOW)
			.denyPurge(true)
			.build();
		ConsumerConfiguration consumer = ConsumerConfiguration.builder()
			.durable(this.settings.timerConsumer())
			.ackPolicy(AckPolicy.Explicit)
			.ackWait(TICKET_ACK_WAIT)
			.maxDeliver(-1)
			.maxAckPending(this.settings.maxWaiting())
			.filterSubject(this.settings.subjectPrefix() + ".>")
			.build();
		if (!this.settings.create()) {
			require(exists(() -> this.management.getStreamInfo(this.settings.stream()), NOT_FOUND), "stream '"
					+ this.settings.stream() + "' (exactlyonce.waits.stream)");
			require(exists(() -> this.management.getConsumerInfo(this.settings.stream(), this.settings.timerConsumer()),
					CONSUMER_NOT_FOUND), "consumer '" + this.settings.timerConsumer() + "' (exactlyonce.waits.timer-consumer)");
			return kept(this.management.getConsumerInfo(this.settings.stream(), this.settings.timerConsumer()));
		}
		if (exists(() -> this.management.getStreamInfo(this.settings.stream()), NOT_FOUND)) {
			this.management.updateStream(stream);
		}
		else {
			this.management.addStream(stream);
		}
		return this.management.addOrUpdateConsumer(this.settings.stream(), consumer).getConsumerConfiguration().getAckWait();
	}

	private Duration kept(ConsumerInfo info) {
		Duration ackWait = info.getConsumerConfiguration().getAckWait();
		if (!TICKET_ACK_WAIT.equals(ackWait)) {
			logger.warn("The durable waits' consumer '" + this.settings.timerConsumer() + "' has an ack wait of " + ackWait
					+ ", not " + TICKET_ACK_WAIT + ": a ticket held by an instance that died comes back after " + ackWait
					+ ". Start once with exactlyonce.provisioning.mode=create-or-update to update it");
		}
		return ackWait;
	}

	private static void require(boolean exists, String what) {
		if (!exists) {
			throw new ExactlyOnceConfigurationException("The durable waits' " + what + " does not exist and "
					+ "exactlyonce.provisioning.mode does not create it", "Start once with exactlyonce.provisioning.mode="
							+ "create-or-update where the streams are provisioned, or set exactlyonce.waits.enabled=false "
							+ "(handlers then cannot sleep or await signals)");
		}
	}

	private static boolean exists(Lookup lookup, int notFound) throws IOException, JetStreamApiException {
		try {
			lookup.run();
			return true;
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == notFound) {
				return false;
			}
			throw ex;
		}
	}

	@FunctionalInterface
	private interface Lookup {

		Object run() throws IOException, JetStreamApiException;

	}

}

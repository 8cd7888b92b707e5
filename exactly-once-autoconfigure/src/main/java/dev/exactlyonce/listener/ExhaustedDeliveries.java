package dev.exactlyonce.listener;

import java.io.IOException;
import java.util.Optional;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.api.RetentionPolicy;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.nats.RawStreamMessage;
import dev.exactlyonce.nats.RawStreamReader;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Dead-letters messages whose deliveries ran out without any attempt settling them (the process
 * died on every attempt). Listens to the server's {@code MAX_DELIVERIES} advisory of one consumer
 * in a queue group (one instance handles each advisory), reads the message back from the stream
 * by sequence (the server does not remove it, even on a WorkQueue stream) through the raw message
 * API (so headers the Java client cannot decode are read too), parks it, marks its key and then
 * removes it from a WorkQueue stream. A key that turns out to be completed is not
 * dead-lettered: its work is done and only the ack was lost.
 */
final class ExhaustedDeliveries {

	private static final Log logger = LogFactory.getLog(ExhaustedDeliveries.class);

	/** The reason of a dead letter whose headers the Java client cannot decode. */
	static final String UNDECODABLE_HEADERS = "headers the Java client cannot decode";

	private final Connection connection;

	private final ListenerEndpoint endpoint;

	private final ConsumerSettings settings;

	private final ArgumentResolver arguments;

	private final KeyResolver keys;

	private final IdempotencyStore store;

	private final DeliverySettler settler;

	private final JsonMapper jsonMapper;

	private final RawStreamReader reader;

	private final String owner;

	private Dispatcher dispatcher;

	ExhaustedDeliveries(Connection connection, ListenerEndpoint endpoint, ConsumerSettings settings,
			ArgumentResolver arguments, KeyResolver keys, IdempotencyStore store, DeliverySettler settler,
			JsonMapper jsonMapper, RawStreamReader reader, String owner) {
		this.connection = connection;
		this.endpoint = endpoint;
		this.settings = settings;
		this.arguments = arguments;
		this.keys = keys;
		this.store = store;
		this.settler = settler;
		this.jsonMapper = jsonMapper;
		this.reader = reader;
		this.owner = owner;
	}

	synchronized void start() {
		if (this.dispatcher == null) {
			this.dispatcher = this.connection.createDispatcher(this::onAdvisory);
			this.dispatcher.subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + this.settings.stream() + "."
					+ this.settings.consumer(), "exactlyonce-" + this.settings.consumer());
		}
	}

	synchronized void stop() {
		if (this.dispatcher != null) {
			this.connection.closeDispatcher(this.dispatcher);
			this.dispatcher = null;
		}
	}

	private void onAdvisory(Message advisory) {
		long sequence = -1;
		try {
			JsonNode event = this.jsonMapper.readTree(advisory.getData());
			sequence = event.path("stream_seq").asLong();
			handle(sequence, event.path("deliveries").asLong());
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			logger.error("Could not dead-letter the message at stream '" + this.settings.stream() + "', consumer '"
					+ this.settings.consumer() + "', sequence " + sequence + " after its last delivery; it stays on "
					+ "the stream: " + ex.getMessage());
		}
	}

	private void handle(long sequence, long deliveries) throws IOException, JetStreamApiException {
		Optional<RawStreamMessage> stored = this.reader.read(this.settings.stream(), sequence);
		if (stored.isEmpty()) {
			logger.warn("Message at stream '" + this.settings.stream() + "', sequence " + sequence
					+ " ran out of deliveries but is no longer in the stream (removed by its limits)");
			return;
		}
		String reason = stored.get().decodableByClient()
				? "max deliveries (" + deliveries + ") reached without a completed attempt" : UNDECODABLE_HEADERS;
		park(stored.get(), deliveries, reason);
	}

	/**
	 * Dead-letters a message read back from the stream (unless its key is already completed or
	 * dead-lettered), marks its key, and removes it from a WorkQueue stream.
	 * @param stored the message as stored
	 * @param deliveries how many times it was delivered, 0 when unknown
	 * @param reason why it is parked
	 * @return false when the dead letter was not stored (the message then stays on its stream)
	 */
	boolean park(RawStreamMessage stored, long deliveries, String reason) throws IOException, JetStreamApiException {
		Delivery delivery = new Delivery(stored.toMessage(), stored.sequence(), deliveries, this.endpoint,
				this.settings);
		resolveKey(delivery);
		IdempotencyRecord record = (delivery.key() != null) ? this.store.find(delivery.storeKey()).orElse(null) : null;
		if (record != null && record.isFinal()) {
			logger.warn("Message at " + delivery.describe() + " must be dead-lettered (" + reason
					+ ") but its key is already " + record.state() + "; not dead-lettering it again");
		}
		else {
			if (!this.settler.publishDeadLetter(delivery, reason, null)) {
				return false;
			}
			claimAndMark(delivery, reason);
			this.settler.outcome(delivery, DeliveryOutcome.DEAD_LETTERED);
		}
		JetStreamManagement management = this.connection.jetStreamManagement();
		if (management.getStreamInfo(this.settings.stream()).getConfiguration()
			.getRetentionPolicy() == RetentionPolicy.WorkQueue) {
			management.deleteMessage(this.settings.stream(), stored.sequence());
		}
		return true;
	}

	private void resolveKey(Delivery delivery) {
		try {
			delivery.key(this.keys.resolve(delivery, () -> this.arguments.payloadForKey(delivery, null)));
		}
		catch (PoisonMessageException ex) {
			logger.warn("No idempotency key for the exhausted message at " + delivery.describe()
					+ "; dead-lettering it without marking a key");
		}
	}

	private void claimAndMark(Delivery delivery, String reason) {
		if (delivery.key() == null) {
			return;
		}
		try {
			ClaimResult result = this.store.tryClaim(delivery.storeKey(), this.owner, this.settings.lease());
			if (result instanceof ClaimResult.Acquired acquired) {
				delivery.claimed(acquired.claim(), acquired.previousAttempt());
				this.settler.markDeadLettered(delivery, reason);
			}
		}
		catch (StoreUnavailableException ex) {
			logger.warn("Could not mark the key of the dead-lettered message at " + delivery.describe() + ": "
					+ ex.getMessage());
		}
		if (delivery.claim() == null) {
			logger.warn("Key of the dead-lettered message at " + delivery.describe() + " is held by a running "
					+ "attempt or unreachable; it was not marked " + RecordState.DEAD_LETTERED);
		}
	}

}

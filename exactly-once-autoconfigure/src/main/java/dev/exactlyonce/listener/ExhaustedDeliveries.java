package dev.exactlyonce.listener;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.RetentionPolicy;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Settles messages whose deliveries ran out without any attempt settling them (the process died on
 * every attempt, or the message was a copy waiting for another attempt of its key). Listens to the
 * server's {@code MAX_DELIVERIES} advisory of one consumer in a queue group (one instance handles
 * each advisory), reads the message back from the stream by sequence (the server does not remove
 * it, even on a WorkQueue stream), decides on the key's record, and then removes it from a
 * WorkQueue stream:
 * <ul>
 * <li>completed key: a duplicate, only the ack was lost; already dead-lettered key: nothing more;</li>
 * <li>key held by a live attempt: decided again when that attempt's lease ends, so a copy that
 * waited for a long task is settled as a duplicate of it rather than dead-lettered;</li>
 * <li>otherwise: dead-lettered, and its key marked.</li>
 * </ul>
 * A decision that fails (store or server unreachable) is retried with backoff until it succeeds
 * while this instance runs; the message stays on its stream meanwhile.
 */
final class ExhaustedDeliveries {

	private static final Log logger = LogFactory.getLog(ExhaustedDeliveries.class);

	private static final int NO_MESSAGE_FOUND = 10037;

	private static final Duration FIRST_RETRY = Duration.ofSeconds(1);

	private static final Duration LONGEST_RETRY = Duration.ofSeconds(30);

	private static final Duration AFTER_LEASE = Duration.ofSeconds(1);

	private final Connection connection;

	private final ListenerEndpoint endpoint;

	private final ConsumerSettings settings;

	private final ArgumentResolver arguments;

	private final KeyResolver keys;

	private final IdempotencyStore store;

	private final DeliverySettler settler;

	private final JsonMapper jsonMapper;

	private final String owner;

	private final ScheduledExecutorService scheduler;

	private final Clock clock;

	private final RateLimitedLog failures = new RateLimitedLog(logger, Duration.ofMinutes(1));

	private final Set<Long> pending = ConcurrentHashMap.newKeySet();

	private Dispatcher dispatcher;

	private volatile boolean running;

	ExhaustedDeliveries(Connection connection, ListenerEndpoint endpoint, ConsumerSettings settings,
			ArgumentResolver arguments, KeyResolver keys, IdempotencyStore store, DeliverySettler settler,
			JsonMapper jsonMapper, String owner, ScheduledExecutorService scheduler, Clock clock) {
		this.connection = connection;
		this.endpoint = endpoint;
		this.settings = settings;
		this.arguments = arguments;
		this.keys = keys;
		this.store = store;
		this.settler = settler;
		this.jsonMapper = jsonMapper;
		this.owner = owner;
		this.scheduler = scheduler;
		this.clock = clock;
	}

	synchronized void start() {
		this.running = true;
		if (this.dispatcher == null) {
			this.dispatcher = this.connection.createDispatcher(this::onAdvisory);
			this.dispatcher.subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + this.settings.stream() + "."
					+ this.settings.consumer(), "exactlyonce-" + this.settings.consumer());
		}
	}

	synchronized void stop() {
		this.running = false;
		if (this.dispatcher != null) {
			this.connection.closeDispatcher(this.dispatcher);
			this.dispatcher = null;
		}
		if (!this.pending.isEmpty()) {
			logger.warn("Stream '" + this.settings.stream() + "', consumer '" + this.settings.consumer()
					+ "': messages at sequences " + new TreeSet<>(this.pending) + " ran out of deliveries and are "
					+ "not settled yet; they stay on the stream (the reconciliation lists them as unfinished)");
		}
	}

	private void onAdvisory(Message advisory) {
		long sequence;
		long deliveries;
		try {
			JsonNode event = this.jsonMapper.readTree(advisory.getData());
			sequence = event.path("stream_seq").asLong();
			deliveries = event.path("deliveries").asLong();
		}
		catch (RuntimeException ex) {
			logger.error("Unreadable MAX_DELIVERIES advisory for stream '" + this.settings.stream() + "', consumer '"
					+ this.settings.consumer() + "': " + ex.getMessage());
			return;
		}
		this.pending.add(sequence);
		decide(sequence, deliveries, FIRST_RETRY);
	}

	/** Settles one exhausted message, or schedules another try; never throws. */
	private void decide(long sequence, long deliveries, Duration nextRetry) {
		if (!this.running) {
			return;
		}
		Duration retryAfter;
		Duration followingRetry = nextRetry;
		try {
			retryAfter = handle(sequence, deliveries);
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			this.failures.warn(() -> "Could not settle the message at stream '" + this.settings.stream()
					+ "', consumer '" + this.settings.consumer() + "', sequence " + sequence
					+ " after its last delivery; it stays on the stream and is tried again in " + nextRetry + ": "
					+ ex.getMessage());
			retryAfter = nextRetry;
			followingRetry = (nextRetry.multipliedBy(2).compareTo(LONGEST_RETRY) > 0) ? LONGEST_RETRY
					: nextRetry.multipliedBy(2);
		}
		if (retryAfter == null) {
			this.pending.remove(sequence);
			return;
		}
		Duration then = followingRetry;
		try {
			this.scheduler.schedule(() -> decide(sequence, deliveries, then), retryAfter.toMillis(),
					TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// shutting down: stop() reports what is left
		}
	}

	/** Settles the message; returns when to decide again, or {@code null} when it is settled. */
	private Duration handle(long sequence, long deliveries) throws IOException, JetStreamApiException {
		JetStreamManagement management = this.connection.jetStreamManagement();
		Optional<MessageInfo> stored = read(management, sequence);
		if (stored.isEmpty()) {
			return null;
		}
		Delivery delivery = Delivery.readBack(stored.get(), deliveries, this.endpoint, this.settings);
		resolveKey(delivery);
		IdempotencyRecord record = (delivery.key() != null) ? this.store.find(delivery.storeKey()).orElse(null) : null;
		Instant now = this.clock.instant();
		if (record != null && record.isLiveClaim(now)) {
			logger.info("Message at " + delivery.describe() + " ran out of deliveries while its key is held by a "
					+ "running attempt of " + record.owner() + "; it is settled once that attempt ends");
			Duration untilLeaseEnds = Duration.between(now, record.leaseUntil());
			return untilLeaseEnds.plus(AFTER_LEASE);
		}
		DeliveryOutcome outcome;
		if (record != null && record.isFinal()) {
			logger.warn("Message at " + delivery.describe() + " ran out of deliveries but its key is already "
					+ record.state() + "; removing this copy without dead-lettering it");
			outcome = (record.state() == RecordState.COMPLETED) ? DeliveryOutcome.DUPLICATE
					: DeliveryOutcome.DEAD_LETTERED;
		}
		else {
			String reason = "max deliveries (" + deliveries + ") reached without a completed attempt";
			if (!this.settler.publishDeadLetter(delivery, reason, null)) {
				throw new IllegalStateException("the dead letter was not stored (see the error above)");
			}
			claimAndMark(delivery, reason);
			outcome = DeliveryOutcome.DEAD_LETTERED;
		}
		if (management.getStreamInfo(this.settings.stream()).getConfiguration()
			.getRetentionPolicy() == RetentionPolicy.WorkQueue) {
			management.deleteMessage(this.settings.stream(), sequence);
		}
		this.settler.outcome(delivery, outcome);
		return null;
	}

	private Optional<MessageInfo> read(JetStreamManagement management, long sequence)
			throws IOException, JetStreamApiException {
		try {
			return Optional.of(management.getMessage(this.settings.stream(), sequence));
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == NO_MESSAGE_FOUND) {
				logger.warn("Message at stream '" + this.settings.stream() + "', sequence " + sequence
						+ " ran out of deliveries but is no longer in the stream (removed by its limits)");
				return Optional.empty();
			}
			throw ex;
		}
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

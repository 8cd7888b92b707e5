package dev.exactlyonce.listener;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
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
import io.nats.client.api.RetentionPolicy;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.exhausted.ExhaustedMessages;
import dev.exactlyonce.listener.logging.RateLimitedLog;
import dev.exactlyonce.nats.RawStreamMessage;
import dev.exactlyonce.nats.RawStreamReader;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Settles messages whose deliveries ran out without any attempt settling them (the process died on
 * every attempt, or the message was a copy waiting for another attempt of its key). Listens to the
 * server's {@code MAX_DELIVERIES} advisory of one consumer in a queue group (one instance handles
 * each advisory), reads the message back from the stream by sequence (the server does not remove
 * it, even on a WorkQueue stream) through the raw message API (so headers the Java client cannot
 * decode are read too), decides on the key's record, and then removes it from a WorkQueue stream:
 * <ul>
 * <li>completed key: a duplicate, only the ack was lost; already dead-lettered key: nothing more;
 * either way the copy is noted on the key's record first ({@link DuplicateTrace});</li>
 * <li>key held by a live attempt: decided again when that attempt's lease ends, so a copy that
 * waited for a long task is settled as a duplicate of it rather than dead-lettered;</li>
 * <li>key whose last attempt (released for a retry, or abandoned) was another copy's that the consumer
 * may still deliver: decided again at the working-ack pace until the key is final or this message
 * made its last attempt, so a copy running out of deliveries never ends a task another copy is still
 * retrying (a copy that is gone, requeued away or terminated, is not waited for);</li>
 * <li>key whose last attempt was this message's, released by a routine shutdown: requeued (see
 * {@link Requeue}), since shutdowns, not failures, used up its deliveries;</li>
 * <li>key whose last attempt was this message's, abandoned or failed, with attempts left (its
 * deliveries went on waiting for a dead holder's lease): requeued as well;</li>
 * <li>otherwise: dead-lettered, and its key marked.</li>
 * </ul>
 * A decision that fails (store or server unreachable) is retried with backoff until it succeeds
 * while this instance runs; the message stays on its stream meanwhile.
 */
final class ExhaustedDeliveries implements ExhaustedMessages {

	private static final Log logger = LogFactory.getLog(ExhaustedDeliveries.class);

	/** The reason of a dead letter whose headers the Java client cannot decode. */
	private static final String UNDECODABLE_HEADERS = "headers the Java client cannot decode";

	private static final Duration FIRST_RETRY = Duration.ofSeconds(1);

	private static final Duration LONGEST_RETRY = Duration.ofSeconds(30);

	private static final Duration RECHECK_MARGIN = Duration.ofMillis(500);

	private final Connection connection;

	private final ListenerEndpoint endpoint;

	private final ConsumerSettings settings;

	private final ArgumentResolver arguments;

	private final KeyResolver keys;

	private final IdempotencyStore store;

	private final DeliverySettler settler;

	private final Requeue requeue;

	private final JsonMapper jsonMapper;

	private final RawStreamReader reader;

	private final String owner;

	private final ScheduledExecutorService scheduler;

	private final Clock clock;

	private final RateLimitedLog failures = new RateLimitedLog(logger, Duration.ofMinutes(1));

	private final DuplicateTrace duplicates;

	private final CompletionParking parking;

	private final Set<Long> pending = ConcurrentHashMap.newKeySet();

	private final Map<Long, String> waitingFor = new ConcurrentHashMap<>();

	private Dispatcher dispatcher;

	private volatile boolean running;

	ExhaustedDeliveries(Connection connection, ListenerEndpoint endpoint, ConsumerSettings settings,
			ArgumentResolver arguments, KeyResolver keys, IdempotencyStore store, DeliverySettler settler,
			Requeue requeue, JsonMapper jsonMapper, RawStreamReader reader, String owner,
			ScheduledExecutorService scheduler, Clock clock, CompletionParking parking) {
		this.connection = connection;
		this.parking = parking;
		this.endpoint = endpoint;
		this.settings = settings;
		this.arguments = arguments;
		this.keys = keys;
		this.store = store;
		this.duplicates = new DuplicateTrace(store);
		this.settler = settler;
		this.requeue = requeue;
		this.jsonMapper = jsonMapper;
		this.reader = reader;
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

	/**
	 * Stops taking advisories, so that the server's next advisory goes to an instance that is not
	 * stopping; decisions already taken on keep running until {@link #stop()}.
	 */
	synchronized void stopListening() {
		if (this.dispatcher != null) {
			this.connection.closeDispatcher(this.dispatcher);
			this.dispatcher = null;
		}
	}

	synchronized void stop() {
		stopListening();
		this.running = false;
		if (!this.pending.isEmpty()) {
			logger.warn("Stream '" + this.settings.stream() + "', consumer '" + this.settings.consumer()
					+ "': messages at sequences " + new TreeSet<>(this.pending) + " ran out of deliveries and are "
					+ "not settled yet; they stay on the stream until an instance's sweep of exhausted messages "
					+ "settles them");
		}
	}

	@Override
	public void settleFound(long sequence) {
		if (this.running && this.pending.add(sequence)) {
			decide(sequence, this.settings.maxDeliver(), FIRST_RETRY);
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
		if (this.pending.add(sequence)) {
			decide(sequence, deliveries, FIRST_RETRY);
		}
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
			this.waitingFor.remove(sequence);
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
		Optional<RawStreamMessage> stored = this.reader.read(this.settings.stream(), sequence);
		if (stored.isEmpty()) {
			logger.info("Message at stream '" + this.settings.stream() + "', sequence " + sequence
					+ " ran out of deliveries but is no longer in the stream (settled by another instance, or removed "
					+ "by the stream's limits)");
			return null;
		}
		String reason = stored.get().decodableByClient()
				? "max deliveries (" + deliveries + ") reached without a completed attempt" : UNDECODABLE_HEADERS;
		return settle(stored.get(), deliveries, reason);
	}

	@Override
	public boolean parkUndecodable(RawStreamMessage stored) throws IOException, JetStreamApiException {
		try {
			return settle(stored, 0, UNDECODABLE_HEADERS) == null;
		}
		catch (DeadLetterNotStored ex) {
			return false;
		}
	}

	/** Settles a message read back; returns when to decide again, or {@code null} when settled. */
	private Duration settle(RawStreamMessage stored, long deliveries, String reason)
			throws IOException, JetStreamApiException {
		Delivery delivery = new Delivery(stored.toMessage(), stored.sequence(), deliveries, this.endpoint,
				this.settings);
		resolveKey(delivery);
		IdempotencyRecord record = (delivery.key() != null) ? this.store.find(delivery.storeKey()).orElse(null) : null;
		Instant now = this.clock.instant();
		if (record != null && record.isLiveClaim(now)) {
			logWaiting(stored.sequence(), "Message at " + delivery.describe() + " ran out of deliveries while its key "
					+ "is held by a running attempt of " + record.owner() + "; it is settled once that attempt ends");
			return this.settings.waitForHolder(1, Duration.between(now, record.leaseUntil())).plus(RECHECK_MARGIN);
		}
		OptionalLong lastAttempt = (record != null && !record.isFinal())
				? ClaimOwners.streamSequenceOf(record.owner()) : OptionalLong.empty();
		if (lastAttempt.isPresent() && lastAttempt.getAsLong() != stored.sequence()
				&& mayBeDeliveredAgain(lastAttempt.getAsLong())) {
			logWaiting(stored.sequence(), "Message at " + delivery.describe() + " ran out of deliveries while its "
					+ "key's last attempt, made for the copy at sequence " + lastAttempt.getAsLong() + ", was released "
					+ "or abandoned and may still be retried by that copy; it is settled once the key is completed or "
					+ "dead-lettered, or attempted by this message");
			return this.settings.workingAckInterval();
		}
		DeliveryOutcome outcome;
		if (record != null && record.state() == RecordState.IN_PROGRESS && recordedParkedCompletion(delivery, record)) {
			outcome = DeliveryOutcome.COMPLETION_RECOVERED;
		}
		else if (record != null && record.state() == RecordState.FAILED
				&& IdempotencyStore.RELEASED_BY_SHUTDOWN.equals(record.resultSummary())) {
			this.requeue.publishCopy(delivery, DeliverySettler.SHUTDOWNS);
			outcome = DeliveryOutcome.RETRIED;
		}
		else if (record != null && !record.isFinal() && !this.settings.isLastKeyAttempt(record.attempts())) {
			this.requeue.publishCopy(delivery, "while its key made " + record.attempts() + " of its "
					+ this.settings.maxDeliver() + " attempts (the others waited for the lease of an attempt that "
					+ "ended mid-work, or for a retry delay): a crash never dead-letters a task with attempts left");
			outcome = DeliveryOutcome.RETRIED;
		}
		else if (record != null && record.state() == RecordState.COMPLETED) {
			logger.info("Message at " + delivery.describe() + " ran out of deliveries but its key is completed; "
					+ "removing this copy as a duplicate");
			this.duplicates.note(delivery);
			outcome = DeliveryOutcome.DUPLICATE;
		}
		else if (record != null && record.state() == RecordState.DEAD_LETTERED) {
			logger.warn(DeliverySettler.alreadyDeadLettered(delivery, "removed after its last delivery"));
			this.duplicates.note(delivery);
			outcome = DeliveryOutcome.ALREADY_DEAD_LETTERED;
		}
		else {
			if (!this.settler.publishDeadLetter(delivery, reason, null)) {
				throw new DeadLetterNotStored();
			}
			this.settler.claimAndMark(delivery, reason);
			outcome = DeliveryOutcome.DEAD_LETTERED;
		}
		if (removedFromWorkQueue(stored.sequence())) {
			this.settler.outcome(delivery, outcome);
		}
		return null;
	}

	/**
	 * Whether the consumer may still deliver the message at {@code sequence}, so that it may make
	 * another attempt of its key: it is on the stream and, unless the stream is a WorkQueue (which
	 * removes what was settled), above the consumer's ack floor. A copy requeued away, terminated or
	 * deleted is not waited for: the key would never be attempted again.
	 */
	private boolean mayBeDeliveredAgain(long sequence) throws IOException, JetStreamApiException {
		if (this.reader.read(this.settings.stream(), sequence).isEmpty()) {
			return false;
		}
		JetStreamManagement management = this.connection.jetStreamManagement();
		if (isWorkQueue(management)) {
			return true;
		}
		return sequence > management.getConsumerInfo(this.settings.stream(), this.settings.consumer())
			.getAckFloor()
			.getStreamSequence();
	}

	/** Whether the consumer's stream removes the messages it settles (WorkQueue retention). */
	private boolean isWorkQueue(JetStreamManagement management) throws IOException, JetStreamApiException {
		return management.getStreamInfo(this.settings.stream()).getConfiguration()
			.getRetentionPolicy() == RetentionPolicy.WorkQueue;
	}

	/**
	 * Removes a settled message from a WorkQueue stream (on other streams the consumer never
	 * delivers it again). False when another instance removed it first: that instance counts its
	 * outcome, so two instances settling one message count it once.
	 */
	private boolean removedFromWorkQueue(long sequence) throws IOException, JetStreamApiException {
		JetStreamManagement management = this.connection.jetStreamManagement();
		if (!isWorkQueue(management)) {
			return true;
		}
		try {
			if (management.deleteMessage(this.settings.stream(), sequence)) {
				return true;
			}
		}
		catch (JetStreamApiException ex) {
			if (this.reader.read(this.settings.stream(), sequence).isPresent()) {
				throw ex;
			}
			return false;
		}
		if (this.reader.read(this.settings.stream(), sequence).isPresent()) {
			throw new IOException("Stream '" + this.settings.stream() + "' did not delete the message at sequence "
					+ sequence);
		}
		return false;
	}

	/** Logs why a message waits, once per reason rather than on every re-check. */
	private void logWaiting(long sequence, String why) {
		if (!why.equals(this.waitingFor.put(sequence, why))) {
			logger.info(why);
		}
	}

	/** The dead letter of an exhausted message was not stored: it stays on its stream for now. */
	private static final class DeadLetterNotStored extends RuntimeException {

		DeadLetterNotStored() {
			super("the dead letter was not stored (see the error above)", null, false, false);
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

	/**
	 * Records the completion that the abandoned attempt of {@code record} parked (its handler finished,
	 * the store could not take its record before it stopped or died), through a claim that takes that
	 * very attempt over, instead of dead-lettering a finished task. A copy other than the one that
	 * completed is noted as its duplicate.
	 * @return {@code true} when the record was written
	 * @throws StoreUnavailableException when the parking or the store did not answer (decided again later)
	 */
	private boolean recordedParkedCompletion(Delivery delivery, IdempotencyRecord record) {
		Optional<CompletionParking.Parked> parked = this.parking.find(delivery.storeKey());
		if (parked.isEmpty() || !parked.get().token().equals(record.token())) {
			return false;
		}
		ClaimResult result = this.store.tryClaim(delivery.storeKey(), ClaimAttempts.ownerOf(this.owner, delivery),
				this.settings.lease());
		if (!(result instanceof ClaimResult.Acquired acquired) || acquired.previousAttempt() == null
				|| !record.token().equals(acquired.previousAttempt().token())) {
			throw new StoreUnavailableException("Key of the message at " + delivery.describe() + " changed while its "
					+ "parked completion was being recorded; deciding again", null);
		}
		Completion completion = parked.get().completion();
		// parked again under this claim's token first: a failed write below leaves it to the next decision
		this.parking.park(delivery.storeKey(), new CompletionParking.Parked(acquired.claim().token(), completion));
		this.store.complete(acquired.claim(), completion);
		this.parking.remove(delivery.storeKey());
		logger.info("Message at " + delivery.describe() + " ran out of deliveries, but the attempt of its key that "
				+ "ended mid-write had finished and parked its completion: recorded now, the handler not run again");
		if (delivery.streamSequence() != completion.streamSequence()) {
			this.duplicates.note(delivery);
		}
		return true;
	}

}

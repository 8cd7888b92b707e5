package dev.exactlyonce.exhausted;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
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
import io.nats.client.api.RetentionPolicy;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.listener.logging.RateLimitedLog;
import dev.exactlyonce.nats.RawStreamMessage;
import dev.exactlyonce.nats.RawStreamReader;

/**
 * Settles messages whose deliveries ran out without any attempt settling them (the process died on
 * every attempt, or the message was a copy waiting for another attempt of its key). Listens to the
 * server's {@code MAX_DELIVERIES} advisory of one consumer in a queue group (one instance handles
 * each advisory), reads the message back from the stream by sequence (the server does not remove
 * it, even on a WorkQueue stream) through the raw message API (so headers the Java client cannot
 * decode are read too), has the pipeline decide on the key's record ({@link ExhaustedKeys}), and
 * then removes it from a WorkQueue stream. A message the pipeline waits on (its key held by a live
 * attempt, or by another copy the consumer may still deliver) is decided again later.
 * <p>
 * A decision that fails (store or server unreachable) is retried with backoff until it succeeds
 * while this instance runs; the message stays on its stream meanwhile.
 */
public final class ExhaustedDeliveries implements ExhaustedMessages {

	private static final Log logger = LogFactory.getLog(ExhaustedDeliveries.class);

	/** The reason of a dead letter whose headers the Java client cannot decode. */
	private static final String UNDECODABLE_HEADERS = "headers the Java client cannot decode";

	private static final Duration FIRST_RETRY = Duration.ofSeconds(1);

	private static final Duration LONGEST_RETRY = Duration.ofSeconds(30);

	private final Connection connection;

	private final String stream;

	private final String consumer;

	private final long maxDeliver;

	private final ExhaustedKeys keys;

	private final JsonMapper jsonMapper;

	private final RawStreamReader reader;

	private final ScheduledExecutorService scheduler;

	private final RateLimitedLog failures = new RateLimitedLog(logger, Duration.ofMinutes(1));

	private final Set<Long> pending = ConcurrentHashMap.newKeySet();

	private final Map<Long, String> waitingFor = new ConcurrentHashMap<>();

	private Dispatcher dispatcher;

	private volatile boolean running;

	/**
	 * Creates the settling of one consumer's exhausted messages; it listens once started.
	 * @param connection the NATS connection
	 * @param stream the consumer's stream
	 * @param consumer the consumer
	 * @param maxDeliver the consumer's maximum deliveries
	 * @param keys decides on the keys' records
	 * @param jsonMapper reads the advisories
	 * @param reader reads messages back from the stream
	 * @param scheduler runs the decisions taken again later
	 */
	public ExhaustedDeliveries(Connection connection, String stream, String consumer, long maxDeliver,
			ExhaustedKeys keys, JsonMapper jsonMapper, RawStreamReader reader, ScheduledExecutorService scheduler) {
		this.connection = connection;
		this.stream = stream;
		this.consumer = consumer;
		this.maxDeliver = maxDeliver;
		this.keys = keys;
		this.jsonMapper = jsonMapper;
		this.reader = reader;
		this.scheduler = scheduler;
	}

	/** Starts listening to the consumer's {@code MAX_DELIVERIES} advisories. */
	public synchronized void start() {
		this.running = true;
		if (this.dispatcher == null) {
			this.dispatcher = this.connection.createDispatcher(this::onAdvisory);
			this.dispatcher.subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + this.stream + "."
					+ this.consumer, "exactlyonce-" + this.consumer);
		}
	}

	/**
	 * Stops taking advisories, so that the server's next advisory goes to an instance that is not
	 * stopping; decisions already taken on keep running until {@link #stop()}.
	 */
	public synchronized void stopListening() {
		if (this.dispatcher != null) {
			this.connection.closeDispatcher(this.dispatcher);
			this.dispatcher = null;
		}
	}

	/** Stops listening and deciding; names the messages left undecided. */
	public synchronized void stop() {
		stopListening();
		this.running = false;
		if (!this.pending.isEmpty()) {
			logger.warn("Stream '" + this.stream + "', consumer '" + this.consumer
					+ "': messages at sequences " + new TreeSet<>(this.pending) + " ran out of deliveries and are "
					+ "not settled yet; they stay on the stream until an instance's sweep of exhausted messages "
					+ "settles them");
		}
	}

	@Override
	public void settleFound(long sequence) {
		if (this.running && this.pending.add(sequence)) {
			decide(sequence, this.maxDeliver, FIRST_RETRY);
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
			logger.error("Unreadable MAX_DELIVERIES advisory for stream '" + this.stream + "', consumer '"
					+ this.consumer + "': " + ex.getMessage());
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
			this.failures.warn(() -> "Could not settle the message at stream '" + this.stream
					+ "', consumer '" + this.consumer + "', sequence " + sequence
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
		Optional<RawStreamMessage> stored = this.reader.read(this.stream, sequence);
		if (stored.isEmpty()) {
			logger.info("Message at stream '" + this.stream + "', sequence " + sequence
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
		ExhaustedKeys.Decision decision = this.keys.decide(stored, deliveries, reason, this::mayBeDeliveredAgain);
		if (decision instanceof ExhaustedKeys.Decision.Recheck recheck) {
			logWaiting(stored.sequence(), recheck.why());
			return recheck.after();
		}
		if (!(decision instanceof ExhaustedKeys.Decision.Settled settled)) {
			throw new DeadLetterNotStored();
		}
		if (removedFromWorkQueue(stored.sequence())) {
			settled.count().run();
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
		if (this.reader.read(this.stream, sequence).isEmpty()) {
			return false;
		}
		JetStreamManagement management = this.connection.jetStreamManagement();
		if (isWorkQueue(management)) {
			return true;
		}
		return sequence > management.getConsumerInfo(this.stream, this.consumer)
			.getAckFloor()
			.getStreamSequence();
	}

	/** Whether the consumer's stream removes the messages it settles (WorkQueue retention). */
	private boolean isWorkQueue(JetStreamManagement management) throws IOException, JetStreamApiException {
		return management.getStreamInfo(this.stream).getConfiguration()
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
			if (management.deleteMessage(this.stream, sequence)) {
				return true;
			}
		}
		catch (JetStreamApiException ex) {
			if (this.reader.read(this.stream, sequence).isPresent()) {
				throw ex;
			}
			return false;
		}
		if (this.reader.read(this.stream, sequence).isPresent()) {
			throw new IOException("Stream '" + this.stream + "' did not delete the message at sequence "
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

}

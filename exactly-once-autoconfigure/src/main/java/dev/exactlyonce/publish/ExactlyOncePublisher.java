package dev.exactlyonce.publish;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.micrometer.observation.ObservationRegistry;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.config.DurationText;
import dev.exactlyonce.listener.KeyResolver;
import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.operations.KeyReopener;
import dev.exactlyonce.store.OperatorAction;

/**
 * Publishes tasks to JetStream with a {@code Nats-Msg-Id}, so that the stream stores each task
 * once however often it is published inside the stream's duplicate window. A publish whose answer
 * is lost is retried with the same message id, so a retry cannot create a second task; retries
 * stop before one could land after the stream's duplicate window, where it would be stored again.
 * No attempt is sent while the connection is down, so nothing of a publish that failed then is
 * sent later from the client's reconnect buffer; an attempt that was sent but never answered makes
 * the outcome unknown ({@link PublishOutcomeUnknownException}). A message id or header value that is
 * not printable US-ASCII (which the Java client refuses) is sent percent-encoded as
 * {@link HeaderEncoding} describes; a listener reads its key back decoded.
 */
public class ExactlyOncePublisher {

	private static final Log logger = LogFactory.getLog(ExactlyOncePublisher.class);

	private static final String MESSAGE_ID = "Nats-Msg-Id";

	private final Connection connection;

	private final JetStream jetStream;

	private final JsonMapper jsonMapper;

	private final int maxAttempts;

	private final Duration initialBackoff;

	private final Duration requestTimeout;

	private final DuplicateWindows duplicateWindows;

	private final List<PublishObserver> observers;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private PublishObservationConvention observationConvention;

	private KeyReopener keyReopener;

	/**
	 * Creates the publisher.
	 * @param connection the NATS connection, whose state decides whether an attempt is sent
	 * @param jetStream the JetStream context of that connection
	 * @param jsonMapper the mapper that writes object payloads
	 * @param retryPolicy attempts, first backoff and per-attempt timeout
	 * @param duplicateWindows the duplicate window of each subject's stream
	 */
	public ExactlyOncePublisher(Connection connection, JetStream jetStream, JsonMapper jsonMapper,
			PublishRetryPolicy retryPolicy, DuplicateWindows duplicateWindows) {
		this(connection, jetStream, jsonMapper, retryPolicy, duplicateWindows, List.of());
	}

	/**
	 * Creates the publisher with observers of confirmed publishes.
	 * @param connection the NATS connection, whose state decides whether an attempt is sent
	 * @param jetStream the JetStream context of that connection
	 * @param jsonMapper the mapper that writes object payloads
	 * @param retryPolicy attempts, first backoff and per-attempt timeout
	 * @param duplicateWindows the duplicate window of each subject's stream
	 * @param observers told about every confirmed publish, in order
	 */
	public ExactlyOncePublisher(Connection connection, JetStream jetStream, JsonMapper jsonMapper,
			PublishRetryPolicy retryPolicy, DuplicateWindows duplicateWindows, List<PublishObserver> observers) {
		this.observers = List.copyOf(observers);
		this.connection = connection;
		this.jetStream = jetStream;
		this.jsonMapper = jsonMapper;
		this.maxAttempts = Math.max(1, retryPolicy.maxAttempts());
		this.initialBackoff = retryPolicy.initialBackoff();
		this.requestTimeout = retryPolicy.requestTimeout();
		this.duplicateWindows = duplicateWindows;
	}

	/**
	 * Observes every publish with this registry, so a tracer propagates the trace context to the
	 * listener through the message headers.
	 * @param observationRegistry the registry ({@link ObservationRegistry#NOOP} by default)
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Names the publish observation and its key values with this convention instead of
	 * {@link DefaultPublishObservationConvention}.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(PublishObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * Lets this publisher resubmit tasks ({@link #resubmit}).
	 * @param keyReopener records resubmits on the tasks' records
	 */
	public void setKeyReopener(KeyReopener keyReopener) {
		this.keyReopener = keyReopener;
	}

	/**
	 * Resubmits a completed or failed task on purpose (a controlled resubmit): records who and why
	 * on the task's record and reopens it (with an empty step journal), then publishes the payload
	 * as {@code <key>/resubmit-<n>} with the key in {@code Exactly-Once-Original-Msg-Id}, so the
	 * listener runs it once more under the same key, and once only. A task that is running, or
	 * dead-lettered (replay it instead), is refused.
	 * @param consumer the declared consumer whose listener runs the task
	 * @param key the task's key without namespace (its original message id, for a listener without
	 * a key expression)
	 * @param subject the subject
	 * @param payload the task's payload, as {@link #publish(String, Object, String)} takes it
	 * @param operator who resubmits it (a service or user name, kept in the record's audit)
	 * @param reason why (kept in the record's audit)
	 * @return the stored sequence and whether it was a duplicate
	 * @throws dev.exactlyonce.operations.OperationRefusedException when the task's state does not
	 * allow a resubmit or the store holds no record of it
	 * @throws PublishException when the copy was not stored, or {@link PublishOutcomeUnknownException}
	 * when it was not answered for: the resubmit is recorded, and the message says how to tell
	 * whether its copy ran before asking again
	 * @throws IllegalStateException when the application has no idempotency store or no consumers
	 */
	public PublishResult resubmit(String consumer, String key, String subject, Object payload, String operator,
			String reason) {
		if (this.keyReopener == null) {
			throw new IllegalStateException("Resubmitting task '" + key + "' needs the idempotency store and the "
					+ "consumer '" + consumer + "' declared under exactlyonce.consumers in this application");
		}
		int number = this.keyReopener.reopen(consumer, key, OperatorAction.Kind.RESUBMIT, 0, operator, reason);
		String messageId = key + "/resubmit-" + number;
		try {
			return publish(subject, payload, messageId, Map.of(KeyResolver.ORIGINAL_MESSAGE_ID_HEADER, key));
		}
		catch (PublishOutcomeUnknownException ex) {
			throw new PublishOutcomeUnknownException(messageId, resubmitNotAnswered(consumer, key, number, operator,
					"its copy '" + messageId + "' may have been stored and may have run by now (" + causeOf(ex) + ")"), ex);
		}
		catch (PublishException ex) {
			throw new PublishException(messageId, resubmitNotAnswered(consumer, key, number, operator,
					"its copy '" + messageId + "' was not stored (" + causeOf(ex) + ")"), ex);
		}
	}

	/** What made a publish fail, without the advice for a plain publish. */
	private static String causeOf(PublishException ex) {
		return (ex.getCause() != null) ? String.valueOf(ex.getCause().getMessage()) : ex.getMessage();
	}

	/**
	 * What to do after a resubmit whose copy was not stored or not answered for: call resubmit
	 * again, never publish the copy's message id by hand (without the key header the copy would run
	 * under a key of its own, and the task's record would wait for it for ever).
	 */
	private static String resubmitNotAnswered(String consumer, String key, int number, String operator,
			String copy) {
		return "RESUBMIT " + number + " of task '" + key + "' of consumer '" + consumer + "' is recorded and " + copy
				+ ". Read the task before asking again: while it is FAILED with last outcome 'RESUBMIT " + number
				+ " by " + operator + ": ...' its copy has not run, and resubmit called again by " + operator
				+ " publishes that copy; once the copy ran, another resubmit runs the task once more. Do not "
				+ "publish the copy's message id yourself: without the task's key in "
				+ KeyResolver.ORIGINAL_MESSAGE_ID_HEADER + " it would run under a key of its own";
	}

	/**
	 * Publishes a payload.
	 * @param subject the subject
	 * @param payload {@code byte[]} and {@code String} are sent as they are, anything else as JSON
	 * @param messageId the message id; the same task must always get the same id
	 * @return the stored sequence and whether it was a duplicate
	 * @throws PublishOutcomeUnknownException when an attempt was sent but none was answered: publish
	 * again with the same message id
	 * @throws PublishException when the server refused the message or no attempt could be sent
	 */
	public PublishResult publish(String subject, Object payload, String messageId) {
		return publish(subject, payload, messageId, Map.of());
	}

	/**
	 * Publishes a payload with extra headers.
	 * @param subject the subject
	 * @param payload {@code byte[]} and {@code String} are sent as they are, anything else as JSON
	 * @param messageId the message id; the same task must always get the same id
	 * @param headers extra headers (names or values the client cannot write are percent-encoded)
	 * @return the stored sequence and whether it was a duplicate
	 * @throws PublishOutcomeUnknownException when an attempt was sent but none was answered: publish
	 * again with the same message id
	 * @throws PublishException when the server refused the message or no attempt could be sent
	 */
	public PublishResult publish(String subject, Object payload, String messageId, Map<String, String> headers) {
		if (messageId == null || messageId.isBlank()) {
			throw new IllegalArgumentException("A message id is required to publish on '" + subject
					+ "': it is what makes a repeated publish a duplicate");
		}
		Headers natsHeaders = new Headers();
		headers.forEach((name, value) -> HeaderEncoding.put(natsHeaders, name, value));
		HeaderEncoding.put(natsHeaders, MESSAGE_ID, messageId);
		NatsMessage message = NatsMessage.builder().subject(subject).headers(natsHeaders).data(body(payload)).build();
		return PublishObservation.observe(this.observationRegistry, this.observationConvention, subject, messageId,
				natsHeaders, () -> send(message, messageId));
	}

	/** Sends with retries under the same message id, never past the stream's duplicate window. */
	private PublishResult send(NatsMessage message, String messageId) {
		String subject = message.getSubject();
		PublishOptions options = PublishOptions.builder().streamTimeout(this.requestTimeout).build();
		Duration backoff = this.initialBackoff;
		long started = System.nanoTime();
		boolean sent = false;
		for (int attempt = 1;; attempt++) {
			String failure;
			Exception cause = null;
			Connection.Status status = this.connection.getStatus();
			if (status != Connection.Status.CONNECTED) {
				failure = "not sent, the NATS connection is " + status;
			}
			else {
				try {
					PublishAck ack = this.jetStream.publish(message, options);
					this.duplicateWindows.learn(subject, ack.getStream());
					PublishResult result = new PublishResult(ack.getStream(), ack.getSeqno(), ack.isDuplicate());
					published(subject, result);
					return result;
				}
				catch (JetStreamApiException ex) {
					throw new PublishException(messageId, "Server refused message id '" + messageId + "' on '"
							+ subject + "': " + ex.getMessage(), ex);
				}
				catch (IllegalArgumentException ex) {
					throw new PublishException(messageId, "Message id '" + messageId + "' on '" + subject
							+ "' cannot be sent: " + ex.getMessage(), ex);
				}
				catch (IOException ex) {
					sent = true;
					failure = "no answer: " + ex.getMessage();
					cause = ex;
				}
				catch (RuntimeException ex) {
					failure = "not sent: " + ex.getMessage();
					cause = ex;
				}
			}
			String publish = "Publish of message id '" + messageId + "' on '" + subject + "'";
			if (attempt >= this.maxAttempts) {
				throw gaveUp(messageId, sent, publish + " failed " + attempt
						+ " times (exactlyonce.publisher.max-attempts), the last time with " + failure, cause);
			}
			Duration window = this.duplicateWindows.forSubject(subject);
			Duration lastPossibleArrival = Duration.ofNanos(System.nanoTime() - started)
				.plus(backoff)
				.plus(this.requestTimeout);
			if (lastPossibleArrival.compareTo(window) >= 0) {
				throw gaveUp(messageId, sent, publish + " failed with " + failure + "; not retrying because another "
						+ "attempt could arrive after the stream's duplicate window (" + DurationText.of(window)
						+ ") and be stored twice. Widen the stream's duplicate-window to retry for longer", cause);
			}
			logger.warn(publish + " failed (attempt " + attempt + ", " + failure + "), retrying with the same id in "
					+ DurationText.of(backoff));
			if (!sleep(backoff)) {
				throw gaveUp(messageId, sent, publish + " was interrupted while waiting to retry", cause);
			}
			backoff = backoff.multipliedBy(2);
		}
	}

	/**
	 * The failure of a publish that is given up: of unknown outcome when an attempt was sent,
	 * otherwise not stored.
	 */
	private static PublishException gaveUp(String messageId, boolean sent, String problem, Exception cause) {
		if (sent) {
			return new PublishOutcomeUnknownException(messageId, problem + ". An attempt was sent without an answer: "
					+ "the message may be stored already, or later when the connection is back. Publish again with "
					+ "the same message id '" + messageId + "', never a new one.", cause);
		}
		return new PublishException(messageId, problem + ". No attempt was sent, nothing was stored: publish "
				+ "again with the same message id '" + messageId + "'.", cause);
	}

	private void published(String subject, PublishResult result) {
		for (PublishObserver observer : this.observers) {
			try {
				observer.onPublished(subject, result);
			}
			catch (RuntimeException ex) {
				logger.warn("Publish observer " + observer.getClass().getName() + " failed: " + ex.getMessage());
			}
		}
	}

	private byte[] body(Object payload) {
		if (payload instanceof byte[] bytes) {
			return bytes;
		}
		if (payload instanceof String text) {
			return text.getBytes(StandardCharsets.UTF_8);
		}
		return this.jsonMapper.writeValueAsBytes(payload);
	}

	/** Sleeps, or returns {@code false} with the interrupt flag restored. */
	private static boolean sleep(Duration backoff) {
		try {
			Thread.sleep(backoff.toMillis());
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}

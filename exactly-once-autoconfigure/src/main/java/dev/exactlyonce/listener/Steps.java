package dev.exactlyonce.listener;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.ParameterizedTypeReference;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordTooLargeException;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;

/**
 * What the durable steps of every delivery share: the store that journals them, the application's
 * JSON mapper for their results (with the size cap), the publisher of {@code ctx.publish} and the
 * observers told each step's outcome. Opens one {@link StepSession} per claimed delivery.
 */
final class Steps {

	private static final Log logger = LogFactory.getLog(Steps.class);

	private final IdempotencyStore store;

	private final JsonMapper mapper;

	/** The application's mapper, refusing a bean it finds no property of (it would be journaled as {}). */
	private final JsonMapper checkingMapper;

	private final ExactlyOncePublisher publisher;

	private final PipelineObservers observers;

	private final long maxResultBytes;

	private final Clock clock;

	private final Duration doneRetryTimeout;

	Steps(IdempotencyStore store, JsonMapper mapper, ExactlyOncePublisher publisher, PipelineObservers observers,
			long maxResultBytes, Duration doneRetryTimeout, Clock clock) {
		this.doneRetryTimeout = doneRetryTimeout;
		this.store = store;
		this.mapper = mapper;
		this.checkingMapper = mapper.rebuild().enable(SerializationFeature.FAIL_ON_EMPTY_BEANS).build();
		this.publisher = publisher;
		this.observers = observers;
		this.maxResultBytes = maxResultBytes;
		this.clock = clock;
	}

	/** The steps of a delivery that holds its claim, replaying what earlier attempts journaled. */
	StepSession open(Delivery delivery, WorkingAcks.Heartbeat heartbeat, StepJournal journal) {
		return new StepSession(this, delivery, heartbeat, journal);
	}

	Instant now() {
		return this.clock.instant();
	}

	PipelineObservers observers() {
		return this.observers;
	}

	ExactlyOncePublisher publisher(Delivery delivery, String step) {
		if (this.publisher == null) {
			throw new StepRejectedException("Step '" + step + "' of listener " + delivery.endpoint().describe()
					+ " publishes, but there is no ExactlyOncePublisher bean", null);
		}
		return this.publisher;
	}

	/**
	 * Journals a step entry for a delivery, fenced by its claim: serialised with the lease renewals,
	 * with the interrupt flag cleared, retried while the store is unavailable: a {@code DONE} entry
	 * (its action already ran and may not be repeatable) as long as a completion record
	 * ({@code completion-retry-timeout}; a write after the lease is still accepted while nobody took
	 * the claim over), any other entry for as long as the lease lasts; never after the listener closed
	 * (its shutdown timeout ran out: the next attempt's probe or abandoned policy decides the step).
	 * @throws dev.exactlyonce.store.ClaimLostException when the claim was taken over
	 * @throws dev.exactlyonce.store.StoreUnavailableException when the store did not answer in time
	 * @throws StepRejectedException when the record with this entry is too large for the store
	 */
	void journal(Delivery delivery, WorkingAcks.Heartbeat heartbeat, StepRecord step) {
		Duration retryFor = (step.state() == StepState.DONE) ? this.doneRetryTimeout : delivery.leaseLeft();
		long deadline = System.nanoTime() + retryFor.toNanos();
		try {
			Uninterrupted.call(() -> StoreWriteRetry.writeUntil(() -> heartbeat.exclusive(() -> {
				this.store.recordStep(delivery.claim(), step);
				return step;
			}), () -> delivery.closed() || System.nanoTime() > deadline, (ex, wait) -> logger.warn("Step '" + step.name()
					+ "' of the message at " + delivery.describe() + " not journaled as " + step.state()
					+ ", retrying in " + wait + ": " + ex.getMessage())));
		}
		catch (RecordTooLargeException ex) {
			throw new StepRejectedException("Step '" + step.name() + "' of the message at " + delivery.describe()
					+ " cannot be journaled: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Journals a step's DONE entry once, inside the transaction of a transactional listener: a
	 * failure is the transaction's (it rolls back), so nothing is retried here.
	 * @throws dev.exactlyonce.store.ClaimLostException when the claim was taken over
	 * @throws dev.exactlyonce.store.StoreUnavailableException when the store did not answer
	 */
	void journalInTransaction(Delivery delivery, WorkingAcks.Heartbeat heartbeat, StepRecord step) {
		Uninterrupted.call(() -> heartbeat.exclusive(() -> {
			this.store.recordStepWithTransaction(delivery.claim(), step);
			return step;
		}));
	}

	/**
	 * A step's result as JSON, within {@code exactlyonce.steps.max-result-size}, checked to read back
	 * as its declared type, so a result that could not be replayed is refused before it is journaled.
	 * @throws StepRejectedException when it cannot be written or read back, or is too large
	 */
	String toJson(Delivery delivery, String step, Object result, ParameterizedTypeReference<?> type) {
		byte[] json;
		try {
			json = this.checkingMapper.writeValueAsBytes(result);
		}
		catch (JacksonException ex) {
			throw new StepRejectedException("Result of step '" + step + "' of listener " + delivery.endpoint().describe()
					+ " (" + typeName(result, type) + ") cannot be written as JSON: " + withoutJacksonAdvice(ex)
					+ ". Return a type Jackson can write and read: a record, or a class with getters and a "
					+ "constructor or setters", ex);
		}
		if (json.length > this.maxResultBytes) {
			throw new StepRejectedException("Result of step '" + step + "' of listener " + delivery.endpoint().describe()
					+ " is " + json.length + " bytes as JSON, above exactlyonce.steps.max-result-size ("
					+ this.maxResultBytes + " bytes): raise it, or store large outputs elsewhere and journal a reference",
					null);
		}
		if (alwaysReadsBack(type)) {
			return new String(json, StandardCharsets.UTF_8);
		}
		try {
			this.mapper.readValue(json, javaType(type));
		}
		catch (JacksonException ex) {
			throw new StepRejectedException("Result of step '" + step + "' of listener " + delivery.endpoint().describe()
					+ " was written as JSON but cannot be read back as " + type.getType().getTypeName()
					+ ", so a later attempt could not replay it: " + ex.getOriginalMessage() + ". Give the type a "
					+ "constructor Jackson can use (a record), or declare the step with the type it returns", ex);
		}
		return new String(json, StandardCharsets.UTF_8);
	}

	/**
	 * A journaled result, read back.
	 * @throws StepRejectedException when it is not a {@code type} (the result type changed since)
	 */
	<T> T fromJson(Delivery delivery, StepRecord step, ParameterizedTypeReference<T> type) {
		try {
			return this.mapper.readValue(step.result(), javaType(type));
		}
		catch (JacksonException ex) {
			throw new StepRejectedException("Journaled result of step '" + step.name() + "' of listener "
					+ delivery.endpoint().describe() + " cannot be read as " + type.getType().getTypeName()
					+ ": the step's result type changed since attempt " + step.attempt() + " journaled it ("
					+ ex.getOriginalMessage() + "). Read it with the old type, or resubmit the task to run it "
					+ "from the start", ex);
		}
	}

	/** Whether every value of the type reads back from its JSON (text, numbers, booleans): no parse needed. */
	private static boolean alwaysReadsBack(ParameterizedTypeReference<?> type) {
		return type.getType() instanceof Class<?> plain && (plain == String.class || plain == Boolean.class
				|| Number.class.isAssignableFrom(plain) && plain.getName().startsWith("java.lang."));
	}

	private JavaType javaType(ParameterizedTypeReference<?> type) {
		return this.mapper.getTypeFactory().constructType(type.getType());
	}

	/** Jackson's message without its advice to stop failing on empty beans: a result written as {} is lost. */
	private static String withoutJacksonAdvice(JacksonException ex) {
		String message = String.valueOf(ex.getOriginalMessage());
		return message.replace(" (to avoid exception, disable SerializationFeature.FAIL_ON_EMPTY_BEANS)", "");
	}

	private static String typeName(Object result, ParameterizedTypeReference<?> type) {
		return (result != null) ? result.getClass().getName() : type.getType().getTypeName();
	}

}

package dev.exactlyonce.steps;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;

import org.springframework.core.ParameterizedTypeReference;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.listener.StepRejectedException;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.steps.spi.StepSession;
import dev.exactlyonce.steps.spi.SteppingTask;
import dev.exactlyonce.steps.spi.TaskSteps;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;

/**
 * What the durable steps of every delivery share: the application's JSON mapper for their results
 * (with the size cap) and the publisher of {@code ctx.publish}. Opens one {@link StepSession} per
 * claimed delivery, which journals through the delivery ({@link SteppingTask}).
 */
public final class DurableSteps implements TaskSteps {

	private final JsonMapper mapper;

	/** The application's mapper, refusing a bean it finds no property of (it would be journaled as {}). */
	private final JsonMapper checkingMapper;

	private final ExactlyOncePublisher publisher;

	private final long maxResultBytes;

	private final Clock clock;

	/** Journals DONE entries held longer than the delay, or {@code null} to journal each at once. */
	private final HeldDoneSweep sweep;

	/**
	 * Creates the steps.
	 * @param mapper the application's JSON mapper, for the steps' results
	 * @param publisher the publisher of {@code ctx.publish}, or {@code null}
	 * @param maxResultBytes the largest result, as JSON, a step may journal
	 * @param clock the clock of the journal's timestamps
	 * @param doneDelay how long a step's DONE entry may wait to be journaled with the next entry
	 * ({@code exactlyonce.steps.done-delay}); zero journals it at once
	 */
	public DurableSteps(JsonMapper mapper, ExactlyOncePublisher publisher, long maxResultBytes, Clock clock,
			Duration doneDelay) {
		this.mapper = mapper;
		this.checkingMapper = mapper.rebuild().enable(SerializationFeature.FAIL_ON_EMPTY_BEANS).build();
		this.publisher = publisher;
		this.maxResultBytes = maxResultBytes;
		this.clock = clock;
		this.sweep = doneDelay.isZero() ? null : new HeldDoneSweep(doneDelay);
	}

	@Override
	public void useTimer(ScheduledExecutorService timer) {
		if (this.sweep != null) {
			this.sweep.start(timer);
		}
	}

	@Override
	public StepSession open(SteppingTask task, StepJournal earlierAttempts) {
		return new TaskStepSession(this, task, earlierAttempts, this.sweep);
	}

	Instant now() {
		return this.clock.instant();
	}

	ExactlyOncePublisher publisher(SteppingTask task, String step) {
		if (this.publisher == null) {
			throw new StepRejectedException("Step '" + step + "' of listener " + task.listener()
					+ " publishes, but there is no ExactlyOncePublisher bean", null);
		}
		return this.publisher;
	}

	/**
	 * A step's result as JSON, within {@code exactlyonce.steps.max-result-size}, checked to read back
	 * as its declared type, so a result that could not be replayed is refused before it is journaled.
	 * @throws StepRejectedException when it cannot be written or read back, or is too large
	 */
	String toJson(SteppingTask task, String step, Object result, ParameterizedTypeReference<?> type) {
		byte[] json;
		try {
			json = this.checkingMapper.writeValueAsBytes(result);
		}
		catch (JacksonException ex) {
			throw new StepRejectedException("Result of step '" + step + "' of listener " + task.listener()
					+ " (" + typeName(result, type) + ") cannot be written as JSON: " + withoutJacksonAdvice(ex)
					+ ". Return a type Jackson can write and read: a record, or a class with getters and a "
					+ "constructor or setters", ex);
		}
		if (json.length > this.maxResultBytes) {
			throw new StepRejectedException("Result of step '" + step + "' of listener " + task.listener()
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
			throw new StepRejectedException("Result of step '" + step + "' of listener " + task.listener()
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
	<T> T fromJson(SteppingTask task, StepRecord step, ParameterizedTypeReference<T> type) {
		try {
			return this.mapper.readValue(step.result(), javaType(type));
		}
		catch (JacksonException ex) {
			throw new StepRejectedException("Journaled result of step '" + step.name() + "' of listener "
					+ task.listener() + " cannot be read as " + type.getType().getTypeName()
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

package dev.exactlyonce.waits;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.operations.OperatedConsumers;
import dev.exactlyonce.operations.OperationRefusedException;

/**
 * Sends signals to tasks waiting in {@code ExactlyOnceContext.awaitSignal}. A signal is stored as the
 * decision of its wait (of the task's current run) before anything else, by a compare-and-set that
 * its wait's timeout and other signals race with, so it is kept when the task has not reached the
 * wait yet and is never both taken and timed out. When the task waits for it, it is resumed at once.
 * The outcome says what happened; a failure (NATS or the store not answering) leaves the signal
 * stored or not stored, never taken and lost: send it again with the same id.
 */
public class ExactlyOnceSignals {

	/** Who sends a signal through {@link #signal(String, String, String, Object, String)}. */
	public static final String APPLICATION = "application";

	private final OperatedConsumers consumers;

	private final DecisionDelivery delivery;

	private final JsonMapper mapper;

	private final long maxPayloadBytes;

	ExactlyOnceSignals(OperatedConsumers consumers, DecisionDelivery delivery, JsonMapper mapper, long maxPayloadBytes) {
		this.consumers = consumers;
		this.delivery = delivery;
		this.mapper = mapper;
		this.maxPayloadBytes = maxPayloadBytes;
	}

	/**
	 * Sends a signal to a task's wait.
	 * @param consumer the consumer whose listener runs the task
	 * @param key the task's key, without namespace
	 * @param name the wait's name ({@code awaitSignal(name, ...)})
	 * @param payload what the wait returns, written as JSON with the application's mapper
	 * @param signalId the signal's id: a signal sent again with the same id is a {@code DUPLICATE};
	 * {@code null} for a new random one
	 * @return what happened
	 * @throws OperationRefusedException when the consumer is not declared or the payload is too large
	 * or not writable as JSON
	 * @throws dev.exactlyonce.store.StoreUnavailableException when the store or NATS did not answer
	 */
	public SignalOutcome signal(String consumer, String key, String name, Object payload, String signalId) {
		return signal(consumer, key, name, payload, signalId, APPLICATION, null);
	}

	/**
	 * Sends a signal on someone's behalf (the operations endpoint): see
	 * {@link #signal(String, String, String, Object, String)}.
	 * @param consumer the consumer whose listener runs the task
	 * @param key the task's key, without namespace
	 * @param name the wait's name
	 * @param payload what the wait returns
	 * @param signalId the signal's id, or {@code null}
	 * @param sender who sends it (kept in the task's audit when it resumes the task)
	 * @param reason why, or {@code null}
	 * @return what happened
	 */
	public SignalOutcome signal(String consumer, String key, String name, Object payload, String signalId,
			String sender, String reason) {
		String storeKey = this.consumers.storeKey(consumer, key);
		String json = json(payload, name);
		return this.delivery.deliver(storeKey, null, name, json, (signalId != null) ? signalId : UUID.randomUUID().toString(),
				sender, reason);
	}

	private String json(Object payload, String name) {
		byte[] json;
		try {
			json = this.mapper.writeValueAsBytes(payload);
		}
		catch (JacksonException ex) {
			throw OperationRefusedException.badRequest("The payload of signal '" + name + "' cannot be written as JSON: "
					+ ex.getOriginalMessage());
		}
		if (json.length > this.maxPayloadBytes) {
			throw OperationRefusedException.badRequest("The payload of signal '" + name + "' is " + json.length
					+ " bytes as JSON, above exactlyonce.steps.max-result-size (" + this.maxPayloadBytes
					+ " bytes): send a reference to it instead");
		}
		return new String(json, StandardCharsets.UTF_8);
	}

}

package dev.exactlyonce.waits;

import java.util.function.UnaryOperator;

import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.store.StepRecord;

/**
 * Hides the payloads of signals from what operators read of a task's journal (with
 * {@code exactlyonce.operations.show-payloads=false}): a signal wait's DONE entry loses its
 * {@code "payload"} and says {@code "payloadHidden":true}; every other entry is shown as it is.
 */
public final class SignalPayloads implements UnaryOperator<StepRecord> {

	private final WaitEntries entries = new WaitEntries(JsonMapper.shared());

	/**
	 * The entry as operators see it.
	 * @param entry a journal entry
	 * @return the entry without a signal's payload
	 */
	@Override
	public StepRecord apply(StepRecord entry) {
		return this.entries.withoutPayload(entry);
	}

}

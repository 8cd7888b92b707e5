package dev.exactlyonce.store;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.ser.std.StdSerializer;

/**
 * Writes a {@link StepJournal} as the JSON array of its entries. What {@code @JsonValue} on the
 * {@code List<StepRecord>} wrote, byte for byte, without resolving the list's generic type on every
 * write: that resolution was a fifth of the CPU samples of a claim or completion (docs/benchmarks.md,
 * "Where it goes").
 */
final class StepJournalSerializer extends StdSerializer<StepJournal> {

	StepJournalSerializer() {
		super(StepJournal.class);
	}

	@Override
	public void serialize(StepJournal journal, JsonGenerator generator, SerializationContext context) {
		RecordJson.writeJournal(generator, journal);
	}

}

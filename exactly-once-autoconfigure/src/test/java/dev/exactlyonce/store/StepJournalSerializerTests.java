package dev.exactlyonce.store;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A step journal is stored as the JSON array of its entries, exactly as the list itself is written,
 * so records written before and after the serializer are the same bytes, and it reads back equal.
 */
class StepJournalSerializerTests {

	private static final Instant NOW = Instant.parse("2026-11-28T03:00:00.123456Z");

	@Test
	void aJournalIsWrittenAsItsListOfEntriesAndReadBack() {
		StepJournal journal = StepJournal.EMPTY.with(StepRecord.started("draft", 1, "token-1", NOW).done("{\"text\":\"é\"}", NOW))
			.with(StepRecord.started("commit", 2, "token-2", NOW).failed(NOW))
			.with(StepRecord.started("publish:agents.devops", 2, "token-2", NOW));

		String written = RecordCodec.mapper().writeValueAsString(journal);

		assertThat(written).isEqualTo(RecordCodec.mapper().writeValueAsString(journal.steps()));
		assertThat(RecordCodec.mapper().readValue(written, StepJournal.class)).isEqualTo(journal);
	}

	@Test
	void anEmptyJournalIsAnEmptyArray() {
		assertThat(RecordCodec.mapper().writeValueAsString(StepJournal.EMPTY)).isEqualTo("[]");
		assertThat(RecordCodec.mapper().writeValueAsString(new StepJournal(List.of()))).isEqualTo("[]");
	}

}

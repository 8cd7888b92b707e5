package dev.exactlyonce.store;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.SealedJournal.Appended;
import dev.exactlyonce.store.SealedJournal.Stored;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When {@link SealedJournal#append} seals the tail: a step's DONE entry replaces its STARTED entry,
 * so the tail is sealed once its entries (not every entry ever written) pass
 * {@value SealedJournal#SEAL_BYTES} bytes.
 */
class SealedJournalTests {

	private final Map<String, byte[]> values = new HashMap<>();

	private final SealedJournal journal = new SealedJournal(new SealedJournal.JournalValues() {

		@Override
		public void put(String key, byte[] value) {
			SealedJournalTests.this.values.put(key, value);
		}

		@Override
		public Map<String, byte[]> readAll(String prefix) {
			return SealedJournalTests.this.values.entrySet()
				.stream()
				.filter((entry) -> entry.getKey().startsWith(prefix))
				.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
		}

	}, 1024 * 1024);

	@Test
	void theTailIsSealedWhenItsEntriesPassTheSealSizeNotWhenStartedAndDoneTogetherDo() {
		Appended appended = this.journal.appendable(Stored.PLAIN, StepJournal.EMPTY);
		int steps = 0;
		while (appended.stored().isPlain()) {
			steps++;
			StepRecord started = StepRecord.started("step-" + steps, 1, "token", Instant.EPOCH);
			String write = "w" + steps;
			appended = this.journal.append("key", appended, started, "token", () -> write + "s");
			appended = this.journal.append("key", appended, started.done(JournalSteps.RESULT, Instant.EPOCH), "token",
					() -> write + "d");
		}
		int doneBytes = RecordCodec.mapper()
			.writeValueAsBytes(StepRecord.started("step-1", 1, "token", Instant.EPOCH).done(JournalSteps.RESULT,
					Instant.EPOCH))
			.length;

		assertThat(steps).as("steps in the first sealed part, DONE entries of %d bytes", doneBytes)
			.isGreaterThanOrEqualTo(SealedJournal.SEAL_BYTES / doneBytes);
		StepJournal sealed = this.journal.resolve("key", appended.stored(), appended.tail());
		assertThat(sealed.steps()).hasSize(steps);
	}

}

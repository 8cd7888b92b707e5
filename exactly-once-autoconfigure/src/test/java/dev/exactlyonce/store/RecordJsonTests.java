package dev.exactlyonce.store;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records are written without data binding, and must stay the bytes data binding writes: what
 * earlier versions stored, and what every reader (another instance mid-upgrade included) expects.
 */
class RecordJsonTests {

	private static final String[] TEXTS = { "", "plain", "quote \" backslash \\ slash /", "é ü 日本 \uD83D\uDE00",
			"control \u0001 \n \t \u001f", "{\"json\":[1,2,{\"a\":null}]}", "x".repeat(300) };

	private static final String[] LONE_SURROGATES = { "high \uD83D then more", "low \uDE00 alone", "ends high \uD83D",
			"high before a quote \uD83D\" and a backslash \\" };

	private final Random random = new Random(43);

	@Test
	void recordsAreTheBytesDataBindingWrites() {
		for (int i = 0; i < 2_000; i++) {
			IdempotencyRecord record = record();

			byte[] written = new RecordCodec().encode(record);

			assertThat(written).isEqualTo(RecordCodec.mapper().writeValueAsBytes(record));
			assertThat(new RecordCodec().decode(written)).isEqualTo(record);
		}
	}

	@Test
	void journalEntriesAreTheBytesDataBindingWritesForThem() {
		for (int i = 0; i < 2_000; i++) {
			StepJournal journal = journal();

			assertThat(RecordJson.journal(journal)).isEqualTo(RecordCodec.mapper().writeValueAsBytes(journal.steps()));
			for (StepRecord step : journal.steps()) {
				assertThat(RecordJson.step(step)).isEqualTo(RecordCodec.mapper().writeValueAsBytes(step));
				assertThat(new RecordCodec().decodeStep(new RecordCodec().encodeStep(step))).isEqualTo(step);
			}
		}
	}

	/**
	 * A store that keeps entries as text (JDBC, Redis) hands it to a driver that encodes it as UTF-8:
	 * a lone surrogate, which UTF-8 cannot hold (it would become {@code ?}), is written as an escape
	 * and comes back as it was.
	 */
	@Test
	void journalEntriesAsTextKeepLoneSurrogatesThroughUtf8() {
		RecordCodec codec = new RecordCodec();
		for (String text : LONE_SURROGATES) {
			StepRecord step = new StepRecord(text, StepState.DONE, 1, text, Instant.EPOCH, Instant.EPOCH, text);
			StepJournal journal = new StepJournal(List.of(step));

			assertThat(codec.decodeStep(throughUtf8(codec.encodeStep(step)))).isEqualTo(step);
			assertThat(codec.decodeJournal(throughUtf8(codec.encodeJournal(journal)))).isEqualTo(journal);
			assertThat(codec.decode(codec.encode(record(journal)))).isEqualTo(record(journal));
		}
	}

	/** A record with sealed parts is written through a tree ({@link SealedJournal#encode}). */
	@Test
	void journalsAsTreesAreWhatDataBindingMakesOfTheirEntries() {
		for (int i = 0; i < 500; i++) {
			StepJournal journal = journal();

			JsonNode tree = RecordCodec.mapper().valueToTree(journal);

			assertThat(tree).isEqualTo((JsonNode) RecordCodec.mapper().valueToTree(journal.steps()));
		}
	}

	@Test
	void instantsAreWrittenAsInstantWritesThem() {
		List<Instant> instants = new ArrayList<>(List.of(Instant.EPOCH, Instant.parse("2026-11-29T16:30:00Z"),
				Instant.parse("2026-11-29T16:30:00.100Z"), Instant.parse("2026-11-29T16:30:00.000100Z"),
				Instant.parse("2026-11-29T16:30:00.000000100Z"), Instant.parse("9999-12-31T23:59:59.999999999Z"),
				Instant.parse("0000-01-01T00:00:00Z"), Instant.MIN, Instant.MAX, Instant.parse("+10000-01-01T00:00:00Z"),
				Instant.parse("-0001-12-31T23:59:59.5Z")));
		while (instants.size() < 10_000) {
			Instant next = instant();
			if (next != null) {
				instants.add(next);
			}
		}
		for (Instant instant : instants) {
			assertThat(RecordJson.iso(instant)).isEqualTo(instant.toString());
		}
	}

	private IdempotencyRecord record() {
		RecordState state = RecordState.values()[this.random.nextInt(RecordState.values().length)];
		PreviousAttempt previous = this.random.nextBoolean() ? null
				: new PreviousAttempt(text(), instant(), this.random.nextInt(9), RecordState.values()[this.random.nextInt(4)],
						text(), text(), text());
		List<Long> duplicates = new ArrayList<>();
		for (int i = this.random.nextInt(4); i > 0; i--) {
			duplicates.add(this.random.nextLong() & Long.MAX_VALUE);
		}
		List<OperatorAction> audit = new ArrayList<>();
		for (int i = this.random.nextInt(3); i > 0; i--) {
			OperatorAction.Kind kind = OperatorAction.Kind.values()[this.random.nextInt(OperatorAction.Kind.values().length)];
			audit.add(new OperatorAction(kind, this.random.nextInt(5), text(), text(), instant(), this.random.nextInt(99)));
		}
		return new IdempotencyRecord(text(), text(), text(), text(), state, this.random.nextInt(5), instant(), instant(),
				this.random.nextInt(1000), instant(), instant(), text(), previous, journal(), duplicates, audit);
	}

	private StepJournal journal() {
		StepJournal journal = StepJournal.EMPTY;
		for (int i = this.random.nextInt(5); i > 0; i--) {
			StepRecord started = StepRecord.started("step-" + i + text(), this.random.nextInt(4), text(), instant());
			journal = journal.with(switch (this.random.nextInt(3)) {
				case 0 -> started;
				case 1 -> started.done(text(), instant());
				default -> started.failed(instant());
			});
		}
		return journal;
	}

	private static String throughUtf8(String text) {
		return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
	}

	private static IdempotencyRecord record(StepJournal journal) {
		return new IdempotencyRecord("k", "l", "o", "t", RecordState.IN_PROGRESS, 1, Instant.EPOCH, Instant.EPOCH, 1, null,
				Instant.EPOCH, null, null, journal, null, null);
	}

	/** A text, or {@code null}. */
	private String text() {
		int pick = this.random.nextInt(TEXTS.length + 1);
		return (pick == TEXTS.length) ? null : TEXTS[pick];
	}

	/** An instant, or {@code null}, with whole seconds or a fraction of 3, 6 or 9 digits. */
	private Instant instant() {
		if (this.random.nextInt(8) == 0) {
			return null;
		}
		long seconds = this.random.nextLong() % 400_000_000_000L;
		int nanos = switch (this.random.nextInt(4)) {
			case 0 -> 0;
			case 1 -> this.random.nextInt(1000) * 1_000_000;
			case 2 -> this.random.nextInt(1_000_000) * 1_000;
			default -> this.random.nextInt(1_000_000_000);
		};
		return Instant.ofEpochSecond(seconds, nanos);
	}

}

package dev.exactlyonce.store;

import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;

import tools.jackson.core.JsonGenerator;

/**
 * Writes records and journal entries as JSON straight to a generator, the bytes
 * {@link RecordCodec#mapper()} writes for them through data binding (component order, nulls
 * written, instants as ISO-8601, the record's {@code final} last), at about half the CPU: every
 * journaled step writes its task's whole record, and binding it (properties read through method
 * handles, instants through {@code DateTimeFormatter}) was a quarter of the JVM's CPU samples of a
 * 3-step task on NATS KV (docs/benchmarks.md, "Where a task's JVM CPU goes").
 */
final class RecordJson {

	private static final long SECONDS_PER_DAY = 86_400;

	private static final int MAX_INITIAL_SIZE = 1 << 20;

	/** 0000-01-01T00:00:00Z: earlier years are written with a sign. */
	private static final long FIRST_FOUR_DIGIT_SECOND = -62_167_219_200L;

	/** 9999-12-31T23:59:59Z: later years are written with a sign and more digits. */
	private static final long LAST_FOUR_DIGIT_SECOND = 253_402_300_799L;

	private RecordJson() {
	}

	/**
	 * A record as JSON.
	 * @param record the record
	 * @return its bytes
	 */
	static byte[] record(IdempotencyRecord record) {
		ByteArrayOutputStream out = new ByteArrayOutputStream(initialSize(512, record.journal()));
		try (JsonGenerator generator = RecordCodec.mapper().createGenerator(out)) {
			writeRecord(generator, record);
		}
		return out.toByteArray();
	}

	/**
	 * A journal entry as JSON.
	 * @param step the entry
	 * @return its bytes
	 */
	static byte[] step(StepRecord step) {
		ByteArrayOutputStream out = new ByteArrayOutputStream(256);
		try (JsonGenerator generator = RecordCodec.mapper().createGenerator(out)) {
			writeStep(generator, step);
		}
		return out.toByteArray();
	}

	/**
	 * A journal as the JSON array of its entries.
	 * @param journal the journal
	 * @return its bytes
	 */
	static byte[] journal(StepJournal journal) {
		ByteArrayOutputStream out = new ByteArrayOutputStream(initialSize(2, journal));
		try (JsonGenerator generator = RecordCodec.mapper().createGenerator(out)) {
			writeJournal(generator, journal);
		}
		return out.toByteArray();
	}

	/**
	 * Writes a journal as the array of its entries.
	 * @param generator where to
	 * @param journal the journal
	 */
	static void writeJournal(JsonGenerator generator, StepJournal journal) {
		generator.writeStartArray(journal, journal.steps().size());
		for (StepRecord step : journal.steps()) {
			writeStep(generator, step);
		}
		generator.writeEndArray();
	}

	/** A first buffer for {@code fixed} bytes and about 256 per entry, at most 1 MiB (it grows past that). */
	private static int initialSize(int fixed, StepJournal journal) {
		return (int) Math.min(MAX_INITIAL_SIZE, fixed + 256L * journal.steps().size());
	}

	private static void writeRecord(JsonGenerator generator, IdempotencyRecord record) {
		generator.writeStartObject(record);
		generator.writeStringProperty("key", record.key());
		generator.writeStringProperty("listener", record.listener());
		generator.writeStringProperty("owner", record.owner());
		generator.writeStringProperty("token", record.token());
		writeEnum(generator, "state", record.state());
		generator.writeNumberProperty("attempts", record.attempts());
		writeInstant(generator, "startedAt", record.startedAt());
		writeInstant(generator, "leaseUntil", record.leaseUntil());
		generator.writeNumberProperty("streamSequence", record.streamSequence());
		writeInstant(generator, "completedAt", record.completedAt());
		writeInstant(generator, "expiresAt", record.expiresAt());
		generator.writeStringProperty("resultSummary", record.resultSummary());
		generator.writeName("previousAttempt");
		writePreviousAttempt(generator, record.previousAttempt());
		generator.writeName("journal");
		writeJournal(generator, record.journal());
		generator.writeName("duplicateSequences");
		writeSequences(generator, record.duplicateSequences());
		generator.writeName("audit");
		generator.writeStartArray(record.audit(), record.audit().size());
		for (OperatorAction action : record.audit()) {
			writeAction(generator, action);
		}
		generator.writeEndArray();
		generator.writeBooleanProperty("final", record.isFinal());
		generator.writeEndObject();
	}

	private static void writeStep(JsonGenerator generator, StepRecord step) {
		generator.writeStartObject(step);
		generator.writeStringProperty("name", step.name());
		writeEnum(generator, "state", step.state());
		generator.writeNumberProperty("attempt", step.attempt());
		generator.writeStringProperty("result", step.result());
		writeInstant(generator, "startedAt", step.startedAt());
		writeInstant(generator, "doneAt", step.doneAt());
		generator.writeStringProperty("origin", step.origin());
		generator.writeEndObject();
	}

	private static void writePreviousAttempt(JsonGenerator generator, PreviousAttempt previous) {
		if (previous == null) {
			generator.writeNull();
			return;
		}
		generator.writeStartObject(previous);
		generator.writeStringProperty("owner", previous.owner());
		writeInstant(generator, "startedAt", previous.startedAt());
		generator.writeNumberProperty("attempts", previous.attempts());
		writeEnum(generator, "state", previous.state());
		generator.writeStringProperty("failure", previous.failure());
		generator.writeStringProperty("unfinishedStep", previous.unfinishedStep());
		generator.writeStringProperty("token", previous.token());
		generator.writeEndObject();
	}

	private static void writeAction(JsonGenerator generator, OperatorAction action) {
		generator.writeStartObject(action);
		writeEnum(generator, "kind", action.kind());
		generator.writeNumberProperty("number", action.number());
		generator.writeStringProperty("operator", action.operator());
		generator.writeStringProperty("reason", action.reason());
		writeInstant(generator, "at", action.at());
		generator.writeNumberProperty("deadLetterSequence", action.deadLetterSequence());
		generator.writeEndObject();
	}

	private static void writeSequences(JsonGenerator generator, List<Long> sequences) {
		generator.writeStartArray(sequences, sequences.size());
		for (Long sequence : sequences) {
			generator.writeNumber(sequence);
		}
		generator.writeEndArray();
	}

	private static void writeEnum(JsonGenerator generator, String name, Enum<?> value) {
		generator.writeStringProperty(name, (value != null) ? value.name() : null);
	}

	private static void writeInstant(JsonGenerator generator, String name, Instant instant) {
		generator.writeName(name);
		if (instant == null) {
			generator.writeNull();
			return;
		}
		long seconds = instant.getEpochSecond();
		if (seconds < FIRST_FOUR_DIGIT_SECOND || seconds > LAST_FOUR_DIGIT_SECOND) {
			generator.writeString(instant.toString());
			return;
		}
		char[] text = new char[30];
		generator.writeString(text, 0, iso(seconds, instant.getNano(), text));
	}

	/**
	 * What {@link Instant#toString()} writes (ISO-8601 in UTC, the fraction in groups of three
	 * digits, none when whole), without a {@code DateTimeFormatter}.
	 * @param instant the instant
	 * @return its text
	 */
	static String iso(Instant instant) {
		long seconds = instant.getEpochSecond();
		if (seconds < FIRST_FOUR_DIGIT_SECOND || seconds > LAST_FOUR_DIGIT_SECOND) {
			return instant.toString();
		}
		char[] text = new char[30];
		return new String(text, 0, iso(seconds, instant.getNano(), text));
	}

	/** Writes a four-digit year's instant into {@code text}; returns its length. */
	private static int iso(long seconds, int nanos, char[] text) {
		LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY));
		int second = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
		digits(text, 0, date.getYear(), 4);
		text[4] = '-';
		digits(text, 5, date.getMonthValue(), 2);
		text[7] = '-';
		digits(text, 8, date.getDayOfMonth(), 2);
		text[10] = 'T';
		digits(text, 11, second / 3600, 2);
		text[13] = ':';
		digits(text, 14, second / 60 % 60, 2);
		text[16] = ':';
		digits(text, 17, second % 60, 2);
		int end = 19;
		if (nanos != 0) {
			text[end++] = '.';
			if (nanos % 1_000_000 == 0) {
				end = digits(text, end, nanos / 1_000_000, 3);
			}
			else if (nanos % 1_000 == 0) {
				end = digits(text, end, nanos / 1_000, 6);
			}
			else {
				end = digits(text, end, nanos, 9);
			}
		}
		text[end] = 'Z';
		return end + 1;
	}

	/** Writes {@code value} zero-padded to {@code width} digits at {@code from}; returns where it ends. */
	private static int digits(char[] text, int from, int value, int width) {
		int remaining = value;
		for (int i = from + width - 1; i >= from; i--) {
			text[i] = (char) ('0' + remaining % 10);
			remaining /= 10;
		}
		return from + width;
	}

}

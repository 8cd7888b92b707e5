package dev.exactlyonce.store.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Reads an {@link IdempotencyRecord} from the Redis hash that holds it: one field per record
 * component (the previous attempt's in {@code previous*} fields), instants as epoch milliseconds,
 * the step journal one field per step ({@code step:<n>}; a hash written before holds it as a JSON
 * array), the operators' audit as a JSON array, the duplicate copies' sequences comma-separated,
 * absent fields for absent values.
 */
final class RedisRecordHash {

	private static final RecordCodec CODEC = new RecordCodec();

	/** Every field of a record's hash but its step journal's ({@code journal}, {@code steps}, {@code step:<n>}). */
	static final List<String> FIELDS_BUT_JOURNAL = List.of("key", "listener", "owner", "token", "state", "attempts",
			"startedAt", "leaseUntil", "streamSequence", "completedAt", "expiresAt", "resultSummary", "previousState",
			"previousOwner", "previousStartedAt", "previousAttempts", "previousFailure", "previousUnfinishedStep",
			"previousToken", "duplicateSequences", "audit");

	private RedisRecordHash() {
	}

	/**
	 * Decodes the field/value pairs of a script reply.
	 * @param reply the script's reply
	 * @param from the index of the first field name
	 * @return the record, or {@code null} when the hash was empty
	 */
	static IdempotencyRecord decode(List<?> reply, int from) {
		Map<String, String> fields = new HashMap<>();
		for (int i = from; i + 1 < reply.size(); i += 2) {
			fields.put(String.valueOf(reply.get(i)), String.valueOf(reply.get(i + 1)));
		}
		return decode(fields);
	}

	/**
	 * Decodes a hash read with {@code HGETALL}.
	 * @param fields the hash
	 * @return the record, or {@code null} when the hash is empty
	 */
	static IdempotencyRecord decode(Map<String, String> fields) {
		if (fields.isEmpty()) {
			return null;
		}
		try {
			return new IdempotencyRecord(fields.get("key"), fields.get("listener"), fields.get("owner"),
					fields.get("token"), RecordState.valueOf(fields.get("state")),
					Integer.parseInt(fields.get("attempts")), instant(fields.get("startedAt")),
					instant(fields.get("leaseUntil")), Long.parseLong(fields.getOrDefault("streamSequence", "0")),
					instant(fields.get("completedAt")), instant(fields.get("expiresAt")), fields.get("resultSummary"),
					previousAttempt(fields), journal(fields),
					sequences(fields.get("duplicateSequences")), CODEC.decodeAudit(fields.get("audit")));
		}
		catch (RuntimeException ex) {
			throw new StoreUnavailableException("Idempotency record in Redis is not readable: " + ex.getMessage(), ex);
		}
	}

	/** The attempt a claim took over, kept in the {@code previous*} fields of its hash. */
	private static PreviousAttempt previousAttempt(Map<String, String> fields) {
		String state = fields.get("previousState");
		if (state == null) {
			return null;
		}
		return new PreviousAttempt(fields.get("previousOwner"), instant(fields.get("previousStartedAt")),
				Integer.parseInt(fields.get("previousAttempts")), RecordState.valueOf(state),
				fields.get("previousFailure"), fields.get("previousUnfinishedStep"), fields.get("previousToken"));
	}

	/**
	 * The step journal: the JSON array of a hash written before step fields (see {@code record.lua}),
	 * then the entries of the step fields, by position; a reply without step fields has none.
	 */
	private static StepJournal journal(Map<String, String> fields) {
		String earlier = fields.get("journal");
		StepJournal journal = (earlier != null && earlier.startsWith("[")) ? CODEC.decodeJournal(earlier)
				: StepJournal.EMPTY;
		String count = fields.get("steps");
		if (count == null) {
			return journal;
		}
		List<StepRecord> steps = new ArrayList<>(journal.steps());
		for (int position = 1; position <= Integer.parseInt(count); position++) {
			String entry = fields.get("step:" + position);
			if (entry == null) {
				throw new StoreUnavailableException("Step journal in Redis names " + count + " steps but has no entry "
						+ position, null);
			}
			steps.add(CODEC.decodeStep(entry));
		}
		return new StepJournal(steps);
	}

	/** Parses the comma-separated {@code duplicateSequences} field. */
	private static List<Long> sequences(String field) {
		return (field != null && !field.isEmpty()) ? Arrays.stream(field.split(",")).map(Long::valueOf).toList()
				: List.of();
	}

	/**
	 * Parses epoch milliseconds.
	 * @param millis the milliseconds, or {@code null}
	 * @return the instant, or {@code null}
	 */
	static Instant instant(String millis) {
		return (millis != null) ? Instant.ofEpochMilli(Long.parseLong(millis)) : null;
	}

}

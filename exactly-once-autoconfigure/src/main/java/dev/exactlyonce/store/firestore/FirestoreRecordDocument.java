package dev.exactlyonce.store.firestore;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.google.cloud.Timestamp;
import com.google.cloud.firestore.DocumentSnapshot;

import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.RecordTooLargeException;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Maps an {@link IdempotencyRecord} to the fields of its Firestore document and back. Instants
 * are Firestore timestamps, so {@code expiresAt} can drive a Firestore TTL policy; the step journal
 * is one JSON string field in the form {@link dev.exactlyonce.store.SealedJournal} gives it (the
 * store reads and writes that field), and so is the operators' audit; the duplicate copies'
 * sequences are an array of integers; absent values are absent fields.
 */
final class FirestoreRecordDocument {

	/** Firestore keeps at most 1 MiB per document; the rest is room for its name and other fields. */
	private static final int MAX_JOURNAL_BYTES = 1_000_000;

	private static final String JOURNAL = "journal";

	private static final RecordCodec CODEC = new RecordCodec();

	private FirestoreRecordDocument() {
	}

	/**
	 * The document fields of a record.
	 * @param record the record
	 * @param journal its journal field, or {@code null} for none
	 * @return the fields
	 * @throws RecordTooLargeException when the journal field would not fit in the document
	 */
	static Map<String, Object> fields(IdempotencyRecord record, String journal) {
		Map<String, Object> fields = new HashMap<>();
		fields.put("key", record.key());
		putIfSet(fields, "listener", record.listener());
		fields.put("owner", record.owner());
		fields.put("token", record.token());
		fields.put("state", record.state().name());
		fields.put("attempts", record.attempts());
		fields.put("startedAt", timestamp(record.startedAt()));
		fields.put("leaseUntil", timestamp(record.leaseUntil()));
		fields.put("streamSequence", record.streamSequence());
		putIfSet(fields, "completedAt", timestamp(record.completedAt()));
		fields.put("expiresAt", timestamp(record.expiresAt()));
		putIfSet(fields, "resultSummary", record.resultSummary());
		putIfSet(fields, "previousAttempt", previousAttemptFields(record.previousAttempt()));
		if (journal != null) {
			fields.put(JOURNAL, requireFits(record.key(), journal));
		}
		if (!record.duplicateSequences().isEmpty()) {
			fields.put("duplicateSequences", record.duplicateSequences());
		}
		if (!record.audit().isEmpty()) {
			fields.put("audit", CODEC.encodeAudit(record.audit()));
		}
		return fields;
	}

	/**
	 * The record of a document.
	 * @param snapshot the document as read
	 * @param journal its journal, as the store read it from the journal field
	 * @return the record, or {@code null} when the document does not exist
	 */
	static IdempotencyRecord record(DocumentSnapshot snapshot, StepJournal journal) {
		if (!snapshot.exists()) {
			return null;
		}
		try {
			return new IdempotencyRecord(snapshot.getString("key"), snapshot.getString("listener"),
					snapshot.getString("owner"), snapshot.getString("token"),
					RecordState.valueOf(snapshot.getString("state")), snapshot.getLong("attempts").intValue(),
					instant(snapshot.getTimestamp("startedAt")), instant(snapshot.getTimestamp("leaseUntil")),
					snapshot.getLong("streamSequence"), instant(snapshot.getTimestamp("completedAt")),
					instant(snapshot.getTimestamp("expiresAt")), snapshot.getString("resultSummary"),
					previousAttempt(snapshot), journal,
					duplicateSequences(snapshot), CODEC.decodeAudit(snapshot.getString("audit")));
		}
		catch (RuntimeException ex) {
			throw new StoreUnavailableException("Idempotency document " + snapshot.getId() + " is not readable", ex);
		}
	}

	/**
	 * The journal field of a document.
	 * @param snapshot the document as read
	 * @return the field, or {@code null} when the document has none
	 */
	static String journal(DocumentSnapshot snapshot) {
		return snapshot.getString(JOURNAL);
	}

	/** The journal field, when it is within what Firestore keeps in a document. */
	private static String requireFits(String key, String journal) {
		int size = journal.getBytes(StandardCharsets.UTF_8).length;
		if (size > MAX_JOURNAL_BYTES) {
			throw new RecordTooLargeException(key, size, MAX_JOURNAL_BYTES);
		}
		return journal;
	}

	private static List<Long> duplicateSequences(DocumentSnapshot snapshot) {
		Object sequences = snapshot.get("duplicateSequences");
		if (!(sequences instanceof List<?> list)) {
			return List.of();
		}
		return list.stream().map((sequence) -> ((Number) sequence).longValue()).toList();
	}

	private static Map<String, Object> previousAttemptFields(PreviousAttempt previous) {
		if (previous == null) {
			return null;
		}
		Map<String, Object> fields = new HashMap<>();
		fields.put("owner", previous.owner());
		fields.put("startedAt", timestamp(previous.startedAt()));
		fields.put("attempts", previous.attempts());
		fields.put("state", previous.state().name());
		putIfSet(fields, "failure", previous.failure());
		putIfSet(fields, "unfinishedStep", previous.unfinishedStep());
		putIfSet(fields, "token", previous.token());
		return fields;
	}

	private static PreviousAttempt previousAttempt(DocumentSnapshot snapshot) {
		if (snapshot.get("previousAttempt") == null) {
			return null;
		}
		return new PreviousAttempt(snapshot.getString("previousAttempt.owner"),
				instant(snapshot.getTimestamp("previousAttempt.startedAt")),
				snapshot.getLong("previousAttempt.attempts").intValue(),
				RecordState.valueOf(snapshot.getString("previousAttempt.state")),
				snapshot.getString("previousAttempt.failure"), snapshot.getString("previousAttempt.unfinishedStep"),
				snapshot.getString("previousAttempt.token"));
	}

	private static void putIfSet(Map<String, Object> fields, String name, Object value) {
		if (value != null) {
			fields.put(name, value);
		}
	}

	/**
	 * An instant as a Firestore timestamp.
	 * @param instant the instant, or {@code null}
	 * @return the timestamp, or {@code null}
	 */
	static Timestamp timestamp(Instant instant) {
		return (instant != null) ? Timestamp.ofTimeSecondsAndNanos(instant.getEpochSecond(), instant.getNano()) : null;
	}

	private static Instant instant(Timestamp timestamp) {
		return (timestamp != null) ? Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos()) : null;
	}

}

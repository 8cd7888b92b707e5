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
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Maps an {@link IdempotencyRecord} to the fields of its Firestore document and back. Instants
 * are Firestore timestamps, so {@code expiresAt} can drive a Firestore TTL policy; the step journal
 * is one JSON string field, and so is the operators' audit; the duplicate copies' sequences are an
 * array of integers; absent values are absent fields.
 */
final class FirestoreRecordDocument {

	/** Firestore keeps at most 1 MiB per document; the rest is room for its name and other fields. */
	private static final int MAX_JOURNAL_BYTES = 1_000_000;

	private static final RecordCodec CODEC = new RecordCodec();

	private FirestoreRecordDocument() {
	}

	/**
	 * The document fields of a record.
	 * @param record the record
	 * @return the fields
	 */
	static Map<String, Object> fields(IdempotencyRecord record) {
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
		if (!record.journal().isEmpty()) {
			fields.put("journal", journal(record));
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
	 * @return the record, or {@code null} when the document does not exist
	 */
	static IdempotencyRecord record(DocumentSnapshot snapshot) {
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
					previousAttempt(snapshot), CODEC.decodeJournal(snapshot.getString("journal")),
					duplicateSequences(snapshot), CODEC.decodeAudit(snapshot.getString("audit")));
		}
		catch (RuntimeException ex) {
			throw new StoreUnavailableException("Idempotency document " + snapshot.getId() + " is not readable", ex);
		}
	}

	/** The journal as one JSON string field, within what Firestore keeps in a document. */
	private static String journal(IdempotencyRecord record) {
		String json = CODEC.encodeJournal(record.journal());
		int size = json.getBytes(StandardCharsets.UTF_8).length;
		if (size > MAX_JOURNAL_BYTES) {
			throw new RecordTooLargeException(record.key(), size, MAX_JOURNAL_BYTES);
		}
		return json;
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

	private static Timestamp timestamp(Instant instant) {
		return (instant != null) ? Timestamp.ofTimeSecondsAndNanos(instant.getEpochSecond(), instant.getNano()) : null;
	}

	private static Instant instant(Timestamp timestamp) {
		return (timestamp != null) ? Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos()) : null;
	}

}

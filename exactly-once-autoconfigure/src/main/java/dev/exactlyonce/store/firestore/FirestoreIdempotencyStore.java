package dev.exactlyonce.store.firestore;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import com.google.api.core.ApiFuture;
import com.google.api.gax.rpc.ApiException;
import com.google.cloud.firestore.CollectionReference;
import com.google.cloud.firestore.DocumentReference;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.FieldPath;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreException;
import com.google.cloud.firestore.Query;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import com.google.cloud.firestore.Transaction;
import com.google.cloud.firestore.TransactionOptions;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimDecision;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.CompareAndSetIdempotencyStore;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.JournalPartMissingException;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.RecordTooLargeException;
import dev.exactlyonce.store.SealedJournal;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StoreKeyEncoder;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * An {@link IdempotencyStore} in a Google Cloud Firestore collection, one document per key. A
 * fresh key is claimed with {@code create()} (fails when the document exists); a key that exists
 * is read once and answered from that read when {@link ClaimRules} need no write (a duplicate);
 * reclaiming, renewing, completing and releasing run them inside a read-write transaction.
 * Document ids are the keys encoded by {@link StoreKeyEncoder} behind a {@code k-} prefix (no
 * {@code /}, never a reserved {@code __id__}). Every document carries an {@code expiresAt}
 * timestamp for a Firestore TTL policy; until that policy deletes a document, reads treat it as
 * absent once it expired.
 * <p>
 * A step journal keeps its latest entries in the record's {@code journal} field and, past
 * {@link SealedJournal#SEAL_BYTES} of them, seals older ones in documents of the collection
 * {@code <collection>_journal} ({@link FirestoreJournalValues}), written by the transaction that
 * journals the step, so a step costs the same at step 10,000 as at step 1 and a result may be larger
 * than a document. Those documents carry {@code expiresAt} too: give that collection the same TTL
 * policy; a record that becomes WAITING moves its parts' {@code expiresAt} forward to its own, so
 * they outlive its wait. {@link #find} and a claim that takes a task over read the whole journal,
 * with one query for the sealed parts; transitions, duplicates' answers and {@link #scan} use the part in the
 * record, so a record that outlived its parts (they expire from their own write) is still answered.
 * A record without sealed parts is written as earlier versions wrote it; one with sealed parts is
 * refused by them.
 * <p>
 * Leases are decided on Firestore's clock, not this instance's: {@link FirestoreServerTime} reads
 * it (once a minute) and the JVM's monotonic clock carries it forward, so instances whose wall
 * clocks disagree still agree on when a lease ends.
 */
public class FirestoreIdempotencyStore extends CompareAndSetIdempotencyStore implements RecordScanner {

	/**
	 * Leaves room for the suffix of the ids of sealed journal parts (a dot-separated token, random
	 * UUID, kind and chunk number, under 100 bytes) within Firestore's 1500 bytes.
	 */
	private static final int MAX_DOCUMENT_ID_BYTES = 1400;

	/** The largest chunk of a sealed journal part: a blob of half of Firestore's 1 MiB per document. */
	private static final int MAX_PART_BYTES = 512 * 1024;

	private static final int TRANSACTION_ATTEMPTS = 16;

	private static final int SCAN_PAGE_SIZE = 500;

	private final CollectionReference collection;

	private final Firestore firestore;

	private final Duration timeout;

	private final FirestoreJournalValues journalValues;

	private final SealedJournal journal;

	/** What this instance wrote last for claims in progress whose journals have sealed parts. */

	private final StoreKeyEncoder keyEncoder = new StoreKeyEncoder(MAX_DOCUMENT_ID_BYTES);

	private final TransactionOptions transactionOptions = TransactionOptions.createReadWriteOptionsBuilder()
		.setNumberOfAttempts(TRANSACTION_ATTEMPTS)
		.build();

	/**
	 * Creates the store.
	 * @param firestore the application's Firestore client
	 * @param collection the collection holding the records; sealed journal parts go to
	 * {@code <collection>_journal}
	 * @param rules the claim rules, put on Firestore's clock here
	 * @param timeout how long one operation may take before the store counts as unavailable
	 */
	public FirestoreIdempotencyStore(Firestore firestore, String collection, ClaimRules rules, Duration timeout) {
		super(rules.onServerClock(new FirestoreServerTime(firestore.collection(collection), timeout)));
		this.firestore = firestore;
		this.collection = firestore.collection(collection);
		this.timeout = timeout;
		this.journalValues = new FirestoreJournalValues(firestore.collection(collection + "_journal"), timeout);
		this.journal = new SealedJournal(this.journalValues, MAX_PART_BYTES);
	}

	@Override
	protected ClaimResult claim(String key, String owner, Duration lease, String token) {
		String id = documentId(key);
		DocumentReference document = this.collection.document(id);
		ClaimDecision fresh = this.rules.claim(null, key, owner, lease, token);
		if (created(document, fresh.toWrite())) {
			return fresh.result();
		}
		Held found = held(id, await(document.get(), "read"), false);
		ClaimDecision answered = this.rules.claim(recordOf(found), key, owner, lease, token);
		if (!answered.requiresWrite()) {
			return answered.result();
		}
		return await(this.firestore.runTransaction((transaction) -> {
			DocumentSnapshot snapshot = transaction.get(document).get();
			Held current = held(id, snapshot, false);
			ClaimDecision decision = this.rules.claim(recordOf(current), key, owner, lease, token);
			if (current != null && !current.journaled().stored().isPlain() && decision.needsWholeJournal()) {
				// an attempt that takes the task over resumes its whole journal
				current = held(id, snapshot, true);
				decision = this.rules.claim(recordOf(current), key, owner, lease, token);
			}
			if (decision.requiresWrite()) {
				write(transaction, document, current, decision.toWrite(), List.of(), decision.keepsJournal());
			}
			return decision.result();
		}, this.transactionOptions), "claim");
	}

	@Override
	public String name() {
		return "firestore";
	}

	/**
	 * Reads the collection in pages of 500 documents in document-id order, skipping expired ones.
	 * A record whose journal has sealed parts is handed with the entries its document keeps.
	 */
	@Override
	public void scan(Consumer<IdempotencyRecord> action) {
		Instant now = this.rules.now();
		Query page = this.collection.orderBy(FieldPath.documentId()).limit(SCAN_PAGE_SIZE);
		while (true) {
			List<QueryDocumentSnapshot> documents = await(page.get(), "scan").getDocuments();
			for (QueryDocumentSnapshot document : documents) {
				IdempotencyRecord record = FirestoreRecordDocument.record(document,
						this.journal.decodeField(FirestoreRecordDocument.journal(document)).tail());
				if (!this.rules.isExpired(record, now)) {
					action.accept(this.rules.onLocalClock(record));
				}
			}
			if (documents.size() < SCAN_PAGE_SIZE) {
				return;
			}
			page = this.collection.orderBy(FieldPath.documentId())
				.startAfter(documents.get(documents.size() - 1))
				.limit(SCAN_PAGE_SIZE);
		}
	}

	private String documentId(String key) {
		return "k-" + this.keyEncoder.encode(key);
	}

	/** Creates the document of a fresh claim; false when it exists already. */
	private boolean created(DocumentReference document, IdempotencyRecord record) {
		try {
			await(document.create(FirestoreRecordDocument.fields(record,
					journalField(this.journal.appendable(SealedJournal.Stored.PLAIN, record.journal())))), "create");
			return true;
		}
		catch (StoreUnavailableException ex) {
			if (isRefused(ex.getCause())) {
				return false;
			}
			throw ex;
		}
	}

	@Override
	protected IdempotencyRecord readRecord(String key) {
		return recordOf(read(documentId(key)));
	}

	/** The record with the part of its journal its document keeps: its sealed parts are not read. */
	@Override
	protected IdempotencyRecord readRecordWithoutJournal(String key) {
		String id = documentId(key);
		return recordOf(held(id, await(this.collection.document(id).get(), "read"), false));
	}

	/**
	 * Journals a step with one transaction that writes the record, whose size stays bounded: past
	 * {@link SealedJournal#SEAL_BYTES} of entries they are sealed in documents of their own first.
	 */
	@Override
	public void recordStep(Claim claim, StepRecord step) {
		recordSteps(claim, List.of(step));
	}

	@Override
	public void recordSteps(Claim claim, List<StepRecord> steps) {
		transition(claim.key(), (current) -> this.rules.recordSteps(current, claim, steps), steps, false);
	}

	@Override
	protected IdempotencyRecord transition(String key, UnaryOperator<IdempotencyRecord> change,
			boolean keepsJournal) {
		return transition(key, change, List.of(), keepsJournal);
	}

	/**
	 * A transition; {@code steps} are the entries it journals, if it journals any, else
	 * {@code keepsJournal} says whether it keeps the journal as stored.
	 */
	private IdempotencyRecord transition(String key, UnaryOperator<IdempotencyRecord> change,
			List<StepRecord> steps,
			boolean keepsJournal) {
		String id = documentId(key);
		DocumentReference document = this.collection.document(id);
		return await(this.firestore.runTransaction((transaction) -> {
			Held current = held(id, transaction.get(document).get(), false);
			IdempotencyRecord next = change.apply(recordOf(current));
			if (next.state() == RecordState.WAITING && current != null && !current.journaled().stored().isPlain()) {
				this.journalValues.keepUntil(transaction, SealedJournal.prefix(id), next.expiresAt());
			}
			write(transaction, document, current, next, steps, keepsJournal);
			return next;
		}, this.transactionOptions), "update");
	}

	/** The record of a key as its document holds it now, with its whole journal; {@code null} for none. */
	private Held read(String id) {
		DocumentSnapshot snapshot = await(this.collection.document(id).get(), "read");
		try {
			return held(id, snapshot, true);
		}
		catch (JournalPartMissingException ex) {
			throw ex.about(recordOf(held(id, snapshot, false)));
		}
	}

	/**
	 * The record of a document as read, with its whole journal (the sealed parts read with one
	 * query) or with the part the document keeps: transitions need no more, and a record that
	 * outlived its expired parts is still answered and written.
	 * @return the record, or {@code null} when the document does not exist
	 */
	private Held held(String id, DocumentSnapshot snapshot, boolean wholeJournal) {
		if (!snapshot.exists()) {
			return null;
		}
		String field = FirestoreRecordDocument.journal(snapshot);
		SealedJournal.Appended journaled = this.journal.decodeField(field);
		StepJournal journal = (wholeJournal && !journaled.stored().isPlain())
				? this.journal.resolve(id, journaled.stored(), journaled.tail()) : journaled.tail();
		return new Held(FirestoreRecordDocument.record(snapshot, journal), journaled);
	}

	private static IdempotencyRecord recordOf(Held held) {
		return (held != null) ? held.record() : null;
	}

	/**
	 * Writes {@code next} over {@code current} in a transaction: a step's entry goes into the tail,
	 * which is sealed (its parts written by the same transaction) when it grew too large; a
	 * transition that kept the journal keeps how it is stored; any other journal is written whole
	 * into the record.
	 * @param steps the entries {@code next} journals, maybe none
	 * @param keepsJournal without steps: whether {@code next} keeps the journal of {@code current}
	 * as it is stored ({@link ClaimDecision#keepsJournal()}, {@link #transition})
	 */
	private void write(Transaction transaction, DocumentReference document, Held current, IdempotencyRecord next,
			List<StepRecord> steps, boolean keepsJournal) {
		SealedJournal.Appended journaled;
		if (!steps.isEmpty()) {
			journaled = this.journalValues.writingIn(transaction, next.expiresAt(), () -> this.journal
				.appendAll(document.getId(), current.journaled(), steps, next.token(), () -> UUID.randomUUID().toString()));
		}
		else if (current != null && keepsJournal) {
			journaled = current.journaled();
		}
		else {
			journaled = this.journal.appendable(SealedJournal.Stored.PLAIN, next.journal());
		}
		transaction.set(document, FirestoreRecordDocument.fields(next, journalField(journaled)));
	}

	/** The journal field of a stored form and tail: none for an empty journal, as earlier versions wrote it. */
	private String journalField(SealedJournal.Appended journaled) {
		return (journaled.stored().isPlain() && journaled.tail().isEmpty()) ? null
				: this.journal.encodeField(journaled);
	}

	private <T> T await(ApiFuture<T> future, String operation) {
		try {
			return future.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			ClaimLostException lost = findCause(ex, ClaimLostException.class);
			if (lost != null) {
				throw lost;
			}
			RecordTooLargeException tooLarge = findCause(ex, RecordTooLargeException.class);
			if (tooLarge != null) {
				throw tooLarge;
			}
			StoreUnavailableException unreadable = findCause(ex, StoreUnavailableException.class);
			throw (unreadable != null) ? unreadable : unavailable(operation, ex.getCause());
		}
		catch (TimeoutException ex) {
			future.cancel(true);
			throw unavailable(operation, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw unavailable(operation, ex);
		}
		catch (RuntimeException ex) {
			throw unavailable(operation, ex);
		}
	}

	private StoreUnavailableException unavailable(String operation, Throwable cause) {
		return new StoreUnavailableException("Firestore " + operation + " in collection '" + this.collection.getId()
				+ "' failed: " + cause, cause);
	}

	/**
	 * Whether a {@code create()} was refused without being applied: the document exists
	 * ({@code ALREADY_EXISTS}), or a transaction contending for it held its lock too long
	 * ({@code ABORTED}); either way the read and the transaction decide.
	 */
	private static boolean isRefused(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof FirestoreException firestore && firestore.getStatus() != null
					&& isRefusal(firestore.getStatus().getCode().name())) {
				return true;
			}
			if (cause instanceof ApiException api && isRefusal(api.getStatusCode().getCode().name())) {
				return true;
			}
		}
		return false;
	}

	private static boolean isRefusal(String code) {
		return "ALREADY_EXISTS".equals(code) || "ABORTED".equals(code);
	}

	/**
	 * A record as a document holds it: the record (with its whole journal, or the part the document
	 * keeps) and its journal field decoded (how the journal is stored, with the part in the record).
	 */
	private record Held(IdempotencyRecord record, SealedJournal.Appended journaled) {
	}

	private static <E extends Throwable> E findCause(Throwable ex, Class<E> type) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		return null;
	}

}

package dev.exactlyonce.store.firestore;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import com.google.api.core.ApiFuture;
import com.google.api.gax.rpc.ApiException;
import com.google.cloud.firestore.CollectionReference;
import com.google.cloud.firestore.DocumentReference;
import com.google.cloud.firestore.FieldPath;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreException;
import com.google.cloud.firestore.Query;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import com.google.cloud.firestore.TransactionOptions;

import dev.exactlyonce.store.ClaimDecision;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.CompareAndSetIdempotencyStore;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.RecordTooLargeException;
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
 * Leases are decided on Firestore's clock, not this instance's: {@link FirestoreServerTime} reads
 * it (once a minute) and the JVM's monotonic clock carries it forward, so instances whose wall
 * clocks disagree still agree on when a lease ends.
 */
public class FirestoreIdempotencyStore extends CompareAndSetIdempotencyStore implements RecordScanner {

	private static final int MAX_DOCUMENT_ID_BYTES = 1400;

	private static final int TRANSACTION_ATTEMPTS = 16;

	private static final int SCAN_PAGE_SIZE = 500;

	private final CollectionReference collection;

	private final Firestore firestore;

	private final Duration timeout;

	private final StoreKeyEncoder keyEncoder = new StoreKeyEncoder(MAX_DOCUMENT_ID_BYTES);

	private final TransactionOptions transactionOptions = TransactionOptions.createReadWriteOptionsBuilder()
		.setNumberOfAttempts(TRANSACTION_ATTEMPTS)
		.build();

	/**
	 * Creates the store.
	 * @param firestore the application's Firestore client
	 * @param collection the collection holding the records
	 * @param rules the claim rules, put on Firestore's clock here
	 * @param timeout how long one operation may take before the store counts as unavailable
	 */
	public FirestoreIdempotencyStore(Firestore firestore, String collection, ClaimRules rules, Duration timeout) {
		super(rules.onServerClock(new FirestoreServerTime(firestore.collection(collection), timeout)));
		this.firestore = firestore;
		this.collection = firestore.collection(collection);
		this.timeout = timeout;
	}

	@Override
	protected ClaimResult claim(String key, String owner, Duration lease, String token) {
		DocumentReference document = document(key);
		ClaimDecision fresh = this.rules.claim(null, key, owner, lease, token);
		if (created(document, fresh.toWrite())) {
			return fresh.result();
		}
		ClaimDecision answered = this.rules.claim(readRecord(key), key, owner, lease, token);
		if (!answered.requiresWrite()) {
			return answered.result();
		}
		return await(this.firestore.runTransaction((transaction) -> {
			IdempotencyRecord current = FirestoreRecordDocument.record(transaction.get(document).get());
			ClaimDecision decision = this.rules.claim(current, key, owner, lease, token);
			if (decision.requiresWrite()) {
				transaction.set(document, FirestoreRecordDocument.fields(decision.toWrite()));
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
	 */
	@Override
	public void scan(Consumer<IdempotencyRecord> action) {
		Instant now = this.rules.now();
		Query page = this.collection.orderBy(FieldPath.documentId()).limit(SCAN_PAGE_SIZE);
		while (true) {
			List<QueryDocumentSnapshot> documents = await(page.get(), "scan").getDocuments();
			for (QueryDocumentSnapshot document : documents) {
				IdempotencyRecord record = FirestoreRecordDocument.record(document);
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

	private DocumentReference document(String key) {
		return this.collection.document("k-" + this.keyEncoder.encode(key));
	}

	/** Creates the document of a fresh claim; false when it exists already. */
	private boolean created(DocumentReference document, IdempotencyRecord record) {
		try {
			await(document.create(FirestoreRecordDocument.fields(record)), "create");
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
		return FirestoreRecordDocument.record(await(document(key).get(), "read"));
	}

	@Override
	protected IdempotencyRecord transition(String key, UnaryOperator<IdempotencyRecord> change) {
		DocumentReference document = document(key);
		return await(this.firestore.runTransaction((transaction) -> {
			IdempotencyRecord next = change.apply(FirestoreRecordDocument.record(transaction.get(document).get()));
			transaction.set(document, FirestoreRecordDocument.fields(next));
			return next;
		}, this.transactionOptions), "update");
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

	private static <E extends Throwable> E findCause(Throwable ex, Class<E> type) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		return null;
	}

}

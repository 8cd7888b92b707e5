package dev.exactlyonce.store.firestore;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import com.google.cloud.Timestamp;
import com.google.cloud.firestore.Blob;
import com.google.cloud.firestore.CollectionReference;
import com.google.cloud.firestore.FieldPath;
import com.google.cloud.firestore.Query;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import com.google.cloud.firestore.Transaction;

import dev.exactlyonce.store.SealedJournal;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * The sealed parts of step journals ({@link SealedJournal}) as documents of a collection of their
 * own, one per part, its id the part's key (the record's document id, which holds no {@code /} and
 * no dot, then {@code .j.} and the part's name), its bytes a {@code value} blob. A part is written
 * by the transaction that writes the record naming it first, so a transaction that does not commit
 * leaves no part behind. It carries that record's {@code expiresAt} timestamp: a Firestore TTL
 * policy on {@code expiresAt} for this collection forgets parts as the records' policy forgets
 * records. A record that becomes WAITING (a task suspended at a durable wait) is kept past
 * {@code completed-ttl} until its wait ends: the transaction that writes it gives its parts its
 * later {@code expiresAt} ({@link #keepUntil}). All parts of a record are read with one query over
 * the range of ids starting with its prefix.
 */
final class FirestoreJournalValues implements SealedJournal.JournalValues {

	/** Sorts after every character of a part's key. */
	private static final String PAST_PREFIX = "\uf8ff";

	private static final String VALUE = "value";

	private static final String EXPIRES_AT = "expiresAt";

	private final CollectionReference collection;

	private final Duration timeout;

	private final ThreadLocal<Sealing> sealing = new ThreadLocal<>();

	/**
	 * Creates the parts' collection.
	 * @param collection the collection holding the parts
	 * @param timeout how long reading a record's parts may take
	 */
	FirestoreJournalValues(CollectionReference collection, Duration timeout) {
		this.collection = collection;
		this.timeout = timeout;
	}

	/**
	 * Runs an append of a step whose sealed parts, if it seals any, are written by a transaction.
	 * @param <T> what the append returns
	 * @param transaction the transaction writing the record that names the parts
	 * @param expiresAt the record's expiry, which the parts carry
	 * @param append the append, calling {@link #put} on this thread
	 * @return what the append returned
	 */
	<T> T writingIn(Transaction transaction, Instant expiresAt, Supplier<T> append) {
		this.sealing.set(new Sealing(transaction, FirestoreRecordDocument.timestamp(expiresAt)));
		try {
			return append.get();
		}
		finally {
			this.sealing.remove();
		}
	}

	/**
	 * Writes a part with the transaction of the enclosing {@link #writingIn}.
	 * @throws IllegalStateException when called outside of one
	 */
	@Override
	public void put(String key, byte[] value) {
		Sealing sealing = this.sealing.get();
		if (sealing == null) {
			throw new IllegalStateException("Step journal part '" + key + "' written outside of a record's transaction");
		}
		sealing.transaction()
			.set(this.collection.document(key), Map.of(VALUE, Blob.fromBytes(value), EXPIRES_AT, sealing.expiresAt()));
	}

	/**
	 * Keeps a record's parts at least until it expires, in the transaction that writes the record:
	 * reads them (before the transaction writes anything) and moves a part's {@code expiresAt}
	 * forward where it is earlier.
	 * @param transaction the transaction writing the record
	 * @param prefix the parts' prefix ({@link SealedJournal#prefix} of the record's document id)
	 * @param expiresAt the record's expiry
	 * @throws InterruptedException when interrupted while reading
	 * @throws ExecutionException when the read failed
	 */
	void keepUntil(Transaction transaction, String prefix, Instant expiresAt)
			throws InterruptedException, ExecutionException {
		Timestamp until = FirestoreRecordDocument.timestamp(expiresAt);
		for (QueryDocumentSnapshot part : transaction.get(parts(prefix)).get()) {
			Timestamp current = part.getTimestamp(EXPIRES_AT);
			if (current == null || current.compareTo(until) < 0) {
				transaction.update(part.getReference(), EXPIRES_AT, until);
			}
		}
	}

	@Override
	public Map<String, byte[]> readAll(String prefix) {
		try {
			Map<String, byte[]> values = new HashMap<>();
			for (QueryDocumentSnapshot part : parts(prefix).get().get(this.timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				values.put(part.getId(), part.getBlob(VALUE).toBytes());
			}
			return values;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw unavailable(prefix, ex);
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			throw unavailable(prefix, ex);
		}
	}

	private Query parts(String prefix) {
		return this.collection.orderBy(FieldPath.documentId()).startAt(prefix).endBefore(prefix + PAST_PREFIX);
	}

	private StoreUnavailableException unavailable(String prefix, Exception ex) {
		return new StoreUnavailableException("Firestore read of the step journal parts under '" + prefix
				+ "' in collection '" + this.collection.getId() + "' failed: " + ex, ex);
	}

	/** Where the parts of the append running on a thread go. */
	private record Sealing(Transaction transaction, Timestamp expiresAt) {
	}

}

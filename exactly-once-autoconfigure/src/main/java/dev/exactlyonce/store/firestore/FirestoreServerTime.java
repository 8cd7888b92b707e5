package dev.exactlyonce.store.firestore;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import com.google.cloud.Timestamp;
import com.google.cloud.firestore.CollectionReference;

import dev.exactlyonce.store.ServerTimeProbe;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Reads Firestore's time: the read time the server gives a strong read of one document id of the
 * collection that no record uses (record ids start with {@code k-}). Reading writes nothing, so
 * the probe leaves no document behind.
 */
final class FirestoreServerTime implements ServerTimeProbe {

	private static final String PROBE_ID = "exactlyonce-clock-probe";

	private final CollectionReference collection;

	private final Duration timeout;

	/**
	 * Creates the probe.
	 * @param collection the records' collection
	 * @param timeout how long the read may take
	 */
	FirestoreServerTime(CollectionReference collection, Duration timeout) {
		this.collection = collection;
		this.timeout = timeout;
	}

	@Override
	public Supplier<Instant> send() {
		Timestamp readTime = read();
		return () -> Instant.ofEpochSecond(readTime.getSeconds(), readTime.getNanos());
	}

	private Timestamp read() {
		try {
			return this.collection.document(PROBE_ID)
				.get()
				.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS)
				.getReadTime();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw unavailable(ex);
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			throw unavailable(ex);
		}
	}

	private StoreUnavailableException unavailable(Exception ex) {
		return new StoreUnavailableException("Firestore server time probe in collection '" + this.collection.getId()
				+ "' failed: " + ex, ex);
	}

}

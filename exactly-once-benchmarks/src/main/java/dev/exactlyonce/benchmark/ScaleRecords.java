package dev.exactlyonce.benchmark;

import java.time.Duration;
import java.util.Locale;

import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * The keys and contents of the scale benchmark's records, shaped as a listener writes them: keys
 * {@code <namespace>:<key>} of one length, so a record replicated from the template has the size
 * of the one written through the store, and completions with a short result summary.
 */
final class ScaleRecords {

	/** How long the stores keep a record ({@code completed-ttl}). */
	static final Duration TTL = Duration.ofHours(72);

	private static final Duration LEASE = Duration.ofMinutes(2);

	private static final String LISTENER = "orders-processor";

	private static final String SUMMARY = "OrderConfirmation[status=CONFIRMED, items=3, total=42.50 EUR]";

	private ScaleRecords() {
	}

	/**
	 * The key of the record written through the store whose stored form the fillers replicate.
	 * @return the key
	 */
	static String templateKey() {
		return key("tmpl", 0);
	}

	/**
	 * Writes the template record through the store.
	 * @param store the store
	 */
	static void writeTemplate(IdempotencyStore store) {
		claimAndComplete(store, templateKey(), 1, null);
	}

	/**
	 * The key of the {@code index}-th bulk-loaded record.
	 * @param index from 0
	 * @return the key
	 */
	static String filledKey(long index) {
		return key("fill", index);
	}

	/**
	 * The key of the {@code index}-th record claimed and completed through the store.
	 * @param index from 0
	 * @return the key
	 */
	static String claimedKey(long index) {
		return key("work", index);
	}

	/**
	 * Claims a fresh key and completes it, as a listener does with a delivery.
	 * @param store the store
	 * @param key a key never claimed before
	 * @param streamSequence the delivery's stream sequence
	 * @param latencies where the times of the claim and the completion go, or {@code null}
	 */
	static void claimAndComplete(IdempotencyStore store, String key, long streamSequence, Latencies latencies) {
		long start = System.nanoTime();
		ClaimResult result = store.tryClaim(key, "worker-1#" + streamSequence, LEASE);
		if (latencies != null) {
			latencies.claims().record(start);
		}
		if (!(result instanceof ClaimResult.Acquired acquired)) {
			throw new IllegalStateException("Fresh key " + key + " was not acquired: " + result);
		}
		start = System.nanoTime();
		store.complete(acquired.claim(), Completion.completed(LISTENER, streamSequence, SUMMARY));
		if (latencies != null) {
			latencies.completions().record(start);
		}
	}

	private static String key(String kind, long index) {
		return String.format(Locale.ROOT, "orders:%s-%010d", kind, index);
	}

	/**
	 * The latencies of claims and of completions.
	 *
	 * @param claims {@code tryClaim} on fresh keys
	 * @param completions {@code complete} of those claims
	 */
	record Latencies(LatencyRecorder claims, LatencyRecorder completions) {

		Latencies(int capacity) {
			this(new LatencyRecorder(capacity), new LatencyRecorder(capacity));
		}

	}

}

package dev.exactlyonce.listener;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.listener.logging.RateLimitedLog;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Notes on a key's final record the stream sequence of a copy about to be settled as its duplicate
 * (acked, terminated or deleted without running), so that reconciliation accounts for the copy
 * after a WorkQueue stream removed it. Best effort: a note that fails is logged (rate-limited, no
 * payload) and the copy is settled anyway; the only cost is a possible false
 * {@code ACKED_WITHOUT_RECORD} finding later.
 */
final class DuplicateTrace {

	private static final Log logger = LogFactory.getLog(DuplicateTrace.class);

	private final IdempotencyStore store;

	private final RateLimitedLog failures = new RateLimitedLog(logger, Duration.ofMinutes(1));

	DuplicateTrace(IdempotencyStore store) {
		this.store = store;
	}

	/** Notes a delivery of a key whose record is final as one of its duplicate copies. */
	void note(Delivery delivery) {
		try {
			this.store.recordDuplicate(delivery.storeKey(), delivery.streamSequence());
		}
		catch (RuntimeException ex) {
			this.failures.warn(() -> "Could not note the message at " + delivery.describe() + " as a duplicate on the "
					+ "record of key '" + delivery.storeKey() + "' (" + ex.getClass().getName() + ": " + ex.getMessage()
					+ "); settling it anyway. Reconciliation may report its sequence as ACKED_WITHOUT_RECORD");
		}
	}

}

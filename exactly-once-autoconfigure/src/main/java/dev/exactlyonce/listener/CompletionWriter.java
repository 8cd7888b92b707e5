package dev.exactlyonce.listener;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Writes the completion record of a handled delivery. While the store is unreachable it retries
 * with exponential backoff (the heartbeat keeps the message alive meanwhile) for at most the
 * configured time; it never gives up by acking, and never by running the handler again. A write
 * whose answer was lost is recognised by the store itself (read back by fencing token). It runs
 * with the thread's interrupt flag cleared (see {@link Uninterrupted}); an interrupt that arrives
 * while it waits between retries ends the retries.
 */
final class CompletionWriter {

	private static final Log logger = LogFactory.getLog(CompletionWriter.class);

	private static final Duration FIRST_RETRY = Duration.ofMillis(100);

	private static final Duration LONGEST_RETRY = Duration.ofSeconds(5);

	private final IdempotencyStore store;

	private final Duration retryTimeout;

	private final int summaryMaxLength;

	CompletionWriter(IdempotencyStore store, Duration retryTimeout, int summaryMaxLength) {
		this.store = store;
		this.retryTimeout = retryTimeout;
		this.summaryMaxLength = summaryMaxLength;
	}

	Settlement write(Delivery delivery, WorkingAcks.Heartbeat heartbeat, Object result) {
		Completion completion = Completion.completed(delivery.consumer(), delivery.streamSequence(), summary(result));
		long deadline = System.nanoTime() + this.retryTimeout.toNanos();
		Duration wait = FIRST_RETRY;
		while (true) {
			try {
				heartbeat.exclusive(() -> this.store.complete(delivery.claim(), completion));
				return new Settlement.Processed();
			}
			catch (ClaimLostException ex) {
				return new Settlement.ClaimLost();
			}
			catch (StoreUnavailableException ex) {
				if (System.nanoTime() > deadline) {
					return new Settlement.CompletionUnrecorded(ex);
				}
				logger.warn("Completion record for the message at " + delivery.describe()
						+ " not written, retrying in " + wait + ": " + ex.getMessage());
				if (!sleep(wait)) {
					return new Settlement.CompletionUnrecorded(ex);
				}
				wait = (wait.multipliedBy(2).compareTo(LONGEST_RETRY) > 0) ? LONGEST_RETRY : wait.multipliedBy(2);
			}
		}
	}

	private String summary(Object result) {
		if (result == null) {
			return null;
		}
		String text = result.toString();
		return (text.length() > this.summaryMaxLength) ? text.substring(0, this.summaryMaxLength) : text;
	}

	private static boolean sleep(Duration wait) {
		try {
			Thread.sleep(wait.toMillis());
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}

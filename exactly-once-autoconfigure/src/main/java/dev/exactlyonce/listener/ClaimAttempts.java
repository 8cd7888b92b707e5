package dev.exactlyonce.listener;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Claims a delivery's key, waiting out a store outage with the message held: between attempts it
 * sends working acks, so the server neither redelivers the message nor counts a delivery against
 * {@code max-deliver}. An outage therefore never spends the delivery budget. It gives up only when
 * the container stops or the thread is interrupted, and then the delivery is nak'd.
 */
final class ClaimAttempts {

	private static final Log logger = LogFactory.getLog(ClaimAttempts.class);

	private static final Duration FIRST_RETRY = Duration.ofMillis(200);

	private static final Duration REPORT_INTERVAL = Duration.ofMinutes(1);

	private final IdempotencyStore store;

	private final String owner;

	ClaimAttempts(IdempotencyStore store, String owner) {
		this.store = store;
		this.owner = owner;
	}

	/**
	 * What the store answered, and how long after the answered request was sent.
	 *
	 * @param result the claim result
	 * @param answeredAfter the time between sending that claim request and its answer
	 */
	record Answer(ClaimResult result, Duration answeredAfter) {
	}

	/**
	 * Claims the delivery's key, retrying while the store is unavailable.
	 * @throws StoreUnavailableException when the container stops (or the thread is interrupted)
	 * before the store answered
	 */
	Answer claim(Delivery delivery) {
		RateLimitedLog outage = new RateLimitedLog(logger, REPORT_INTERVAL);
		Backoff backoff = new Backoff(FIRST_RETRY, delivery.settings().workingAckInterval());
		while (true) {
			long sent = System.nanoTime();
			try {
				ClaimResult result = Uninterrupted
					.call(() -> this.store.tryClaim(delivery.storeKey(), this.owner, delivery.settings().lease()));
				return new Answer(result, Duration.ofNanos(System.nanoTime() - sent));
			}
			catch (StoreUnavailableException ex) {
				if (delivery.stopping() || Thread.currentThread().isInterrupted()) {
					throw ex;
				}
				outage.warn(() -> "Idempotency store unavailable while claiming the message at " + delivery.describe()
						+ "; holding it with working acks (no delivery is spent) and retrying until the store answers: "
						+ ex.getMessage());
				if (!holdFor(delivery, backoff.next())) {
					throw ex;
				}
			}
		}
	}

	/** Sends a working ack and waits; false when interrupted (the flag is restored). */
	private static boolean holdFor(Delivery delivery, Duration wait) {
		Uninterrupted.run(() -> {
			try {
				delivery.message().inProgress();
			}
			catch (RuntimeException ex) {
				// disconnected: the server cannot see this delivery's timer either; the next round tries again
			}
		});
		return Backoff.sleep(wait);
	}

}

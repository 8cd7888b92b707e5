package dev.exactlyonce.listener;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.config.DurationText;
import dev.exactlyonce.listener.logging.RateLimitedLog;
import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Claims a delivery's key, waiting out a store that is down or slow with the message held: while it
 * waits, the working-ack timer sends in-progress signals (never waiting for the store), so the server neither redelivers the message nor counts a
 * delivery against {@code max-deliver}. A claim answered so late that its lease (counted from when
 * the request was sent) could end before the first renewal is kept and renewed until a renewal is
 * answered in time; the handler never runs on such a lease. It holds the message for at most one
 * lease (so a store slow or down for less than that spends no delivery), and gives up earlier when
 * the container stops or the thread is interrupted; then an acquired claim is released and the
 * delivery nak'd, so another instance (perhaps with a working path to the store) can take it.
 * <p>
 * The claim's owner is this instance and the message's stream sequence
 * ({@code <instance>#<sequence>}), so a record tells which message made its last attempt.
 */
final class ClaimAttempts {

	private static final Log logger = LogFactory.getLog(ClaimAttempts.class);

	private static final Duration FIRST_RETRY = Duration.ofMillis(200);

	private static final Duration REPORT_INTERVAL = Duration.ofMinutes(1);

	private final IdempotencyStore store;

	private final WorkingAcks workingAcks;

	private final String owner;

	ClaimAttempts(IdempotencyStore store, WorkingAcks workingAcks, String owner) {
		this.store = store;
		this.workingAcks = workingAcks;
		this.owner = owner;
	}

	/**
	 * The owner a delivery claims as.
	 * @param instance this instance's name
	 * @param delivery the delivery
	 * @return {@code <instance>#<stream sequence>}
	 */
	static String ownerOf(String instance, Delivery delivery) {
		return ClaimOwners.of(instance, delivery.streamSequence());
	}

	/**
	 * Claims the delivery's key, retrying while the store is unavailable or answers too late.
	 * @throws StoreUnavailableException when the container stops (or the thread is interrupted)
	 * before the store answered in time
	 */
	ClaimResult claim(Delivery delivery) {
		Holding holding = new Holding(delivery);
		try {
			return claim(delivery, holding);
		}
		finally {
			holding.end();
		}
	}

	private ClaimResult claim(Delivery delivery, Holding holding) {
		RateLimitedLog slowOrDown = new RateLimitedLog(logger, REPORT_INTERVAL);
		Backoff backoff = new Backoff(FIRST_RETRY, delivery.settings().workingAckInterval());
		while (true) {
			long sent = System.nanoTime();
			ClaimResult result;
			try {
				result = Uninterrupted.call(() -> this.store.tryClaim(delivery.storeKey(),
						ownerOf(this.owner, delivery), delivery.settings().lease()));
			}
			catch (StoreUnavailableException ex) {
				giveUpWhenStopping(delivery, ex);
				holding.giveUpAfterLease(ex);
				slowOrDown.warn(() -> "Idempotency store unavailable while claiming the message at "
						+ delivery.describe() + "; holding it with working acks (no delivery is spent) and retrying "
						+ "until the store answers: " + ex.getMessage());
				holding.begin();
				if (!Backoff.sleep(backoff.next())) {
					throw ex;
				}
				continue;
			}
			catch (RuntimeException ex) {
				throw new StoreUnavailableException("Idempotency store failed to claim the message at "
						+ delivery.describe() + ": " + ex, ex);
			}
			if (!(result instanceof ClaimResult.Acquired acquired)) {
				return result;
			}
			if (answeredInTime(delivery, sent)) {
				delivery.leaseStarted(sent);
				return result;
			}
			holding.begin();
			ClaimResult renewed = renewUntilAnsweredInTime(delivery, acquired, backoff, slowOrDown, holding);
			if (renewed != null) {
				return renewed;
			}
		}
	}

	/**
	 * Keeps a claim answered too late alive until a renewal is answered in time.
	 * @return the claim to run on, or {@code null} when it was lost meanwhile (claim again)
	 */
	private ClaimResult renewUntilAnsweredInTime(Delivery delivery, ClaimResult.Acquired acquired, Backoff backoff,
			RateLimitedLog slow, Holding holding) {
		Claim claim = acquired.claim();
		while (true) {
			slow.warn(() -> "Claim on the message at " + delivery.describe() + " was answered too late for its lease of "
					+ DurationText.of(delivery.settings().lease()) + " to reach the first renewal; holding the message and renewing "
					+ "the claim until the store answers in time. Lower the store's call timeout or raise "
					+ "exactlyonce.store.lease if this recurs");
			if (delivery.stopping() || holding.leaseSpent() || !Backoff.sleep(backoff.next())) {
				release(claim, delivery.stopping() ? IdempotencyStore.RELEASED_BY_SHUTDOWN
						: "given up unrun: the store answered too late for the lease");
				throw new StoreUnavailableException("Claim on the message at " + delivery.describe()
						+ " given up unrun: the store answered too late for " + delivery.settings().lease()
						+ " or the listener is stopping", null);
			}
			long sent = System.nanoTime();
			Claim current = claim;
			try {
				claim = Uninterrupted.call(() -> this.store.renew(current, delivery.settings().lease()));
			}
			catch (ClaimLostException ex) {
				return null;
			}
			catch (RuntimeException ex) {
				continue;
			}
			if (answeredInTime(delivery, sent)) {
				delivery.leaseStarted(sent);
				return new ClaimResult.Acquired(claim, acquired.previousAttempt(), acquired.journal(), acquired.run());
			}
		}
	}

	/**
	 * Whether an answer left enough lease, counted from when its request was sent, to reach the
	 * first renewal: the store started the lease no earlier than that.
	 */
	private static boolean answeredInTime(Delivery delivery, long sentNanos) {
		Duration answeredAfter = Duration.ofNanos(System.nanoTime() - sentNanos);
		return answeredAfter.plus(delivery.settings().workingAckInterval()).compareTo(delivery.settings().lease()) < 0;
	}

	private static void giveUpWhenStopping(Delivery delivery, StoreUnavailableException ex) {
		if (delivery.stopping() || Thread.currentThread().isInterrupted()) {
			throw ex;
		}
	}

	private void release(Claim claim, String reason) {
		try {
			Uninterrupted.run(() -> this.store.release(claim, reason));
		}
		catch (RuntimeException ex) {
			// not released: the claim ends with its lease
		}
	}

	/**
	 * The working acks that hold a delivery while it is being claimed: the first one goes out one
	 * working-ack interval after claiming started (a claim answered sooner never sends one), so even
	 * a store call slower than the ack wait does not let the server redeliver the message.
	 */
	private final class Holding {

		private final WorkingAcks.Heartbeat heartbeat;

		private final long leaseNanos;

		private long waitingSince;

		private boolean waiting;

		private Holding(Delivery delivery) {
			this.heartbeat = ClaimAttempts.this.workingAcks.hold(delivery);
			this.leaseNanos = delivery.settings().lease().toNanos();
		}

		/** Marks the start of waiting for the store (the first failed or late answer). */
		void begin() {
			if (!this.waiting) {
				this.waiting = true;
				this.waitingSince = System.nanoTime();
			}
		}

		/** Whether the message has been held, waiting for the store, for a whole lease. */
		boolean leaseSpent() {
			return this.waiting && System.nanoTime() - this.waitingSince > this.leaseNanos;
		}

		void giveUpAfterLease(StoreUnavailableException ex) {
			if (leaseSpent()) {
				throw ex;
			}
		}

		void end() {
			this.heartbeat.stop();
		}

	}

}

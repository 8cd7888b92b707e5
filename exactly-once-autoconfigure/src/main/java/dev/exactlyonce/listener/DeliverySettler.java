package dev.exactlyonce.listener;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

import io.nats.client.JetStreamApiException;

import dev.exactlyonce.children.spi.ChildFailures;
import dev.exactlyonce.deadletter.DeadLetter;
import dev.exactlyonce.deadletter.DeadLetterException;
import dev.exactlyonce.deadletter.DeadLetterPublisher;
import dev.exactlyonce.limits.spi.LimitQueueFullException;
import dev.exactlyonce.listener.logging.HandlerFailureLog;
import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.listener.logging.OutcomeLog;
import dev.exactlyonce.listener.logging.SettlementLog;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Settles a delivery with the server once the pipeline decided its fate: ack, nak with a delay,
 * or dead-letter then terminate. Acks come only after the completion record is durable; by default
 * they are synchronous so a completed delivery is known to be acknowledged. Whether confirmed or
 * not, a lost ack only causes a redelivery, which is recognised as a duplicate. A copy settled as a
 * duplicate of a final key is first noted on the key's record ({@link DuplicateTrace}).
 */
final class DeliverySettler {

	private static final Duration SHORTEST_NAK_DELAY = Duration.ofSeconds(1);

	/** Stack traces of handler failures logged per minute at most, so a poison flood cannot fill the disk. */
	private static final int TRACES_PER_MINUTE = 20;

	private final IdempotencyStore store;

	private final DeadLetterPublisher deadLetters;

	private final PipelineObservers observers;

	private final Duration ackTimeout;

	private final boolean confirmAcks;

	private final Clock clock;

	private final Requeue requeue;

	private final DuplicateTrace duplicates;

	private final HolderWaits holderWaits = new HolderWaits();

	private final HandlerFailureLog failures = new HandlerFailureLog(TRACES_PER_MINUTE, Duration.ofMinutes(1));

	private final String owner;

	private volatile ChildFailures childFailures = ChildFailures.NONE;

	DeliverySettler(IdempotencyStore store, DeadLetterPublisher deadLetters, Requeue requeue,
			PipelineObservers observers, Duration ackTimeout, boolean confirmAcks, Clock clock, String owner) {
		this.store = store;
		this.owner = owner;
		this.duplicates = new DuplicateTrace(store);
		this.deadLetters = deadLetters;
		this.requeue = requeue;
		this.observers = observers;
		this.ackTimeout = ackTimeout;
		this.confirmAcks = confirmAcks;
		this.clock = clock;
	}

	/** What used up the deliveries of a message released by shutdowns, for the requeue's log. */
	static final String SHUTDOWNS = "only because routine shutdowns released it (it never failed)";

	/** Settles a delivery whose invocation returned, as the advice decided. */
	void settle(Delivery delivery) {
		Settlement settlement = delivery.settlement();
		if (settlement instanceof Settlement.Processed) {
			ack(delivery, DeliveryOutcome.PROCESSED);
		}
		else if (settlement instanceof Settlement.Suspended suspended) {
			SettlementLog.suspended(delivery.describe(), delivery.key(), suspended.waitingFor());
			ack(delivery, DeliveryOutcome.SUSPENDED);
		}
		else if (settlement instanceof Settlement.Duplicate) {
			this.duplicates.note(delivery);
			ack(delivery, DeliveryOutcome.DUPLICATE);
		}
		else if (settlement instanceof Settlement.HeldElsewhere held) {
			this.holderWaits.waiting(delivery, held.owner(), held.leaseUntil());
			Duration remaining = Duration.between(this.clock.instant(), held.leaseUntil());
			nak(delivery, delivery.settings().waitForHolder(delivery.deliveryCount(), remaining),
					DeliveryOutcome.IN_PROGRESS_ELSEWHERE);
		}
		else if (settlement instanceof Settlement.AlreadyDeadLettered) {
			SettlementLog.alreadyDeadLettered(alreadyDeadLettered(delivery, "terminated without running it"));
			this.duplicates.note(delivery);
			term(delivery);
			outcome(delivery, DeliveryOutcome.ALREADY_DEAD_LETTERED);
		}
		else if (settlement instanceof Settlement.KeyAttemptsExhausted exhausted) {
			deadLetter(delivery, "key '" + delivery.key() + "' already ran " + exhausted.attempts()
					+ " times across its copies (max-deliver " + delivery.settings().maxDeliver() + ")", null);
		}
		else if (settlement instanceof Settlement.StoreUnavailable unavailable) {
			SettlementLog.noClaim(delivery.describe(), unavailable.cause().getMessage());
			nak(delivery, delivery.settings().retryDelayAfter(delivery.deliveryCount()), DeliveryOutcome.RETRIED);
		}
		else if (settlement instanceof Settlement.AbandonedToDeadLetter) {
			deadLetter(delivery, "abandoned: the previous attempt died mid-work and on-abandoned is dead-letter", null);
		}
		else if (settlement instanceof Settlement.ClaimLost) {
			claimLost(delivery, "completion refused");
		}
		else if (settlement instanceof Settlement.CompletionUnrecorded unrecorded) {
			SettlementLog.completionUnrecorded(delivery.describe(), unrecorded.cause().getMessage());
			outcome(delivery, DeliveryOutcome.COMPLETION_UNRECORDED);
		}
		else if (settlement instanceof Settlement.CompletionParked parked) {
			SettlementLog.completionParked(delivery.describe(), parked.cause().getMessage());
			outcome(delivery, DeliveryOutcome.COMPLETION_PARKED);
		}
		else if (settlement instanceof Settlement.CompletionRecovered recovered) {
			if (recovered.otherCopy()) {
				this.duplicates.note(delivery);
			}
			SettlementLog.completionRecovered(delivery.describe(), delivery.key());
			ack(delivery, DeliveryOutcome.COMPLETION_RECOVERED);
		}
	}

	/** Settles a delivery whose handler threw. */
	void handlerFailed(Delivery delivery, Throwable failure, boolean retryable, boolean shuttingDown) {
		if (isClaimLost(failure)) {
			claimLost(delivery, "a step's journal write refused");
			return;
		}
		if (shuttingDown) {
			SettlementLog.stoppedByShutdown(delivery.describe(), failure.getClass().getName());
			release(delivery, IdempotencyStore.RELEASED_BY_SHUTDOWN);
			if (delivery.settings().isLastDelivery(delivery.deliveryCount()) && requeued(delivery, SHUTDOWNS)) {
				term(delivery);
				outcome(delivery, DeliveryOutcome.RETRIED);
				return;
			}
			nak(delivery, Duration.ZERO, DeliveryOutcome.RETRIED);
			return;
		}
		boolean lastDelivery = delivery.settings().isLastDelivery(delivery.deliveryCount());
		boolean lastAttemptOfKey = delivery.claim() != null
				&& delivery.settings().isLastKeyAttempt(delivery.claim().attempt());
		if (retryable && lastDelivery && !lastAttemptOfKey && delivery.claim() != null) {
			// deliveries were spent without attempts (waiting for a dead holder's lease): a fresh budget
			release(delivery, failure.getClass().getName());
			if (requeued(delivery, "waiting for other attempts of its key while it still has attempts left "
					+ "(this one failed with " + failure.getClass().getName() + ")")) {
				term(delivery);
				outcome(delivery, DeliveryOutcome.RETRIED);
				return;
			}
			nak(delivery, delivery.settings().retryDelayAfter(delivery.deliveryCount()), DeliveryOutcome.RETRIED);
			return;
		}
		if (!retryable || lastDelivery || lastAttemptOfKey) {
			String reason = !retryable
					? "handler failed with a non-retryable exception (" + failure.getClass().getName() + ")"
					: lastDelivery ? "handler failed on the last delivery (max-deliver reached)"
							: "handler failed max-deliver (" + delivery.settings().maxDeliver()
									+ ") times for this key across its copies";
			deadLetter(delivery, queueFull(failure).map((full) -> "limit queue full on the last attempt: "
					+ full.getMessage()).orElse(reason), failure);
			return;
		}
		this.failures.retried(delivery.describe(), delivery.key(), failure);
		release(delivery, failure.getClass().getName());
		Duration delay = shuttingDown ? Duration.ZERO : delivery.settings().retryDelayAfter(delivery.deliveryCount());
		nak(delivery, delay, DeliveryOutcome.RETRIED);
	}

	/** The limit's full queue that made an attempt fail, so that its dead letter says so rather than "handler failed". */
	private static Optional<LimitQueueFullException> queueFull(Throwable failure) {
		for (Throwable cause = failure; cause != null && cause.getCause() != cause; cause = cause.getCause()) {
			if (cause instanceof LimitQueueFullException full) {
				return Optional.of(full);
			}
		}
		return Optional.empty();
	}

	/**
	 * Requeues a delivery released on its last delivery while its key has attempts left, so that
	 * shutdowns and waits never use up its deliveries; false (and a warning) when the copy was not
	 * stored: it is then nak'd and requeued once its deliveries ran out.
	 */
	private boolean requeued(Delivery delivery, String why) {
		try {
			this.requeue.publishCopy(delivery, why);
			return true;
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			SettlementLog.couldNot("requeue", delivery.describe(), ", released on its last delivery; nak'd instead, "
					+ "it is requeued once its deliveries ran out", ex.getMessage());
			return false;
		}
	}

	/**
	 * Tells the parents of dead-lettered child tasks.
	 * @param failures what tells them
	 */
	void useChildFailures(ChildFailures failures) {
		this.childFailures = failures;
	}

	/**
	 * Parks a delivery in its dead-letter subject, marks its key, then terminates it. When the dead
	 * letter cannot be stored the message stays on its stream for a later delivery: a failed
	 * attempt's claim is released, an abandoned one is left to expire again so that it is never
	 * run because the dead-letter stream was missing.
	 */
	void deadLetter(Delivery delivery, String reason, Throwable failure) {
		if (!publishDeadLetter(delivery, reason, failure)) {
			if (!(delivery.settlement() instanceof Settlement.AbandonedToDeadLetter)) {
				release(delivery, reason);
			}
			nak(delivery, delivery.settings().retryDelayAfter(delivery.deliveryCount()), DeliveryOutcome.RETRIED);
			return;
		}
		markDeadLettered(delivery, reason);
		term(delivery);
		outcome(delivery, DeliveryOutcome.DEAD_LETTERED);
	}

	/**
	 * Parks a delivery that can never run as it is (a poison message: found before any claim) in its
	 * dead-letter subject, marks its key when nothing else would run it (the delivery is the copy an
	 * operator's pending replay or resubmit published, or its own earlier attempt failed), then
	 * terminates it. That key is claimed and marked
	 * {@link dev.exactlyonce.store.RecordState#DEAD_LETTERED}, so the new dead letter can be replayed
	 * or discarded (a reopened key would refuse both, waiting for a copy that has run). Any other key is
	 * left to its record: another copy of it may be good and still to run (a retry waiting for its
	 * redelivery, or a copy not delivered yet), and marking the key would terminate that copy unrun;
	 * a dead letter whose key has no record gets one when an operator acts on it.
	 */
	void deadLetterUnclaimed(Delivery delivery, String reason, Throwable failure) {
		if (!publishDeadLetter(delivery, reason, failure)) {
			nak(delivery, delivery.settings().retryDelayAfter(delivery.deliveryCount()), DeliveryOutcome.RETRIED);
			return;
		}
		if (delivery.key() != null && isLastCopyOfItsKey(delivery)) {
			claimAndMark(delivery, reason);
		}
		term(delivery);
		outcome(delivery, DeliveryOutcome.DEAD_LETTERED);
	}

	/**
	 * Whether nothing but this delivery would run its key: it is the copy of the replay or resubmit
	 * that reopened the key and has not run yet, or the message whose own earlier attempt failed and
	 * left the key waiting for this (now poison) redelivery.
	 */
	private boolean isLastCopyOfItsKey(Delivery delivery) {
		String messageId = HeaderEncoding.first(delivery.headers(), KeyResolver.MESSAGE_ID_HEADER);
		try {
			return this.store.find(delivery.storeKey())
				.filter((record) -> record.state() == RecordState.FAILED)
				.filter((record) -> record.pendingReopen()
					.map((action) -> action.publishedAs(delivery.key(), messageId))
					.orElse(ClaimOwners.streamSequenceOf(record.owner()).orElse(-1) == delivery.streamSequence()))
				.isPresent();
		}
		catch (StoreUnavailableException ex) {
			SettlementLog.couldNot("read the key of", delivery.describe(), " (dead-lettered)", ex.getMessage());
			return false;
		}
	}

	/**
	 * Claims the key of a dead-lettered delivery that holds no claim and marks it
	 * {@link dev.exactlyonce.store.RecordState#DEAD_LETTERED}; a key held by a running attempt or
	 * that the store cannot reach is left as it is (and said so).
	 * @param delivery the delivery, dead-lettered already
	 * @param reason why it was dead-lettered
	 */
	void claimAndMark(Delivery delivery, String reason) {
		if (delivery.key() == null) {
			return;
		}
		try {
			ClaimResult result = this.store.tryClaim(delivery.storeKey(), ClaimAttempts.ownerOf(this.owner, delivery),
					delivery.settings().lease());
			if (result instanceof ClaimResult.Acquired acquired) {
				delivery.claimed(acquired.claim(), acquired.previousAttempt());
				markDeadLettered(delivery, reason);
			}
		}
		catch (StoreUnavailableException ex) {
			SettlementLog.couldNot("mark the key of", delivery.describe(), " (dead-lettered)", ex.getMessage());
		}
		if (delivery.claim() == null) {
			SettlementLog.deadLetteredKeyUnmarked(delivery.describe());
		}
	}

	/**
	 * The warning for a copy of a key that was dead-lettered before, with how to run it again.
	 * @param delivery the copy
	 * @param action what was done with it
	 * @return the log line
	 */
	static String alreadyDeadLettered(Delivery delivery, String action) {
		return "Message at " + delivery.describe() + " is a copy of key '" + delivery.key() + "', which was "
				+ "dead-lettered before; " + action + ". To run the key again, delete its record '"
				+ delivery.storeKey() + "' from the idempotency store and publish it again";
	}

	/**
	 * Stores a dead letter for a delivery; false (and an error log) when no stream stored it, in
	 * which case the original must stay on its stream.
	 */
	boolean publishDeadLetter(Delivery delivery, String reason, Throwable failure) {
		ConsumerSettings settings = delivery.settings();
		// told first: a crash after the dead letter must not leave a waiting parent unaware (a child
		// whose dead letter then fails to store is retried, and its completion still wins)
		this.childFailures.deadLettering(delivery.headers(), settings.consumer(), delivery.key(), reason);
		try {
			this.deadLetters.publish(new DeadLetter(delivery.message(), settings.deadLetterSubject(), settings.stream(),
					settings.consumer(), delivery.streamSequence(), delivery.deliveryCount(), delivery.key(), reason,
					failure));
		}
		catch (DeadLetterException ex) {
			SettlementLog.deadLetterNotStored(delivery.describe(), reason, ex.getMessage());
			return false;
		}
		this.failures.deadLettered(delivery.describe(), settings.deadLetterSubject(), reason, failure,
				!(failure instanceof PoisonMessageException));
		return true;
	}

	/** Marks the key of a dead-lettered delivery so that no later delivery runs it. */
	void markDeadLettered(Delivery delivery, String reason) {
		if (delivery.claim() == null) {
			return;
		}
		try {
			this.store.complete(delivery.claim(),
					Completion.deadLettered(delivery.consumer(), delivery.streamSequence(), reason));
		}
		catch (ClaimLostException | StoreUnavailableException ex) {
			SettlementLog.couldNot("mark the key of", delivery.describe(), " (dead-lettered)", ex.getMessage());
		}
	}

	/** Leaves a delivery whose claim was taken over unsettled: the holder's attempt decides its fate. */
	private void claimLost(Delivery delivery, String refused) {
		SettlementLog.claimLost(delivery.describe(), refused);
		outcome(delivery, DeliveryOutcome.CLAIM_LOST);
	}

	private static boolean isClaimLost(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof ClaimLostException) {
				return true;
			}
		}
		return false;
	}

	private void release(Delivery delivery, String failure) {
		if (delivery.claim() == null) {
			return;
		}
		try {
			this.store.release(delivery.claim(), failure);
		}
		catch (ClaimLostException | StoreUnavailableException ex) {
			SettlementLog.couldNot("release the claim on", delivery.describe(),
					"; it becomes claimable when its lease ends", ex.getMessage());
		}
	}

	private void ack(Delivery delivery, DeliveryOutcome outcome) {
		try {
			long started = System.nanoTime();
			if (this.confirmAcks) {
				delivery.message().ackSync(this.ackTimeout);
			}
			else {
				delivery.message().ack();
			}
			this.observers.timed(PipelineTiming.ACK, delivery, Duration.ofNanos(System.nanoTime() - started));
			this.observers.reached(PipelinePoint.ACKED, delivery);
		}
		catch (PipelineHaltedException ex) {
			// an observer halted at ACKED: the outcome stays unreported, as after a crash right after the ack
			throw ex;
		}
		catch (TimeoutException | RuntimeException ex) {
			SettlementLog.signalFailed("Ack", delivery.describe(), "not confirmed", ex.getMessage(),
					"its redelivery will be recognised as a duplicate");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		outcome(delivery, outcome);
	}

	private void nak(Delivery delivery, Duration delay, DeliveryOutcome outcome) {
		Duration effective = (delay.compareTo(SHORTEST_NAK_DELAY) < 0 && !delay.isZero()) ? SHORTEST_NAK_DELAY : delay;
		try {
			if (effective.isZero() || effective.isNegative()) {
				delivery.message().nak();
			}
			else {
				delivery.message().nakWithDelay(effective);
			}
		}
		catch (RuntimeException ex) {
			SettlementLog.signalFailed("Nak", delivery.describe(), "not sent", ex.getMessage(),
					"the server redelivers it after its ack wait");
		}
		outcome(delivery, outcome);
	}

	private void term(Delivery delivery) {
		try {
			delivery.message().term();
		}
		catch (RuntimeException ex) {
			SettlementLog.signalFailed("Termination", delivery.describe(), "not sent", ex.getMessage(),
					"its redelivery finds its key settled");
		}
	}

	void outcome(Delivery delivery, DeliveryOutcome outcome) {
		OutcomeLog.settled(delivery.describe(), delivery.key(), outcome.tagValue(), delivery.held());
		this.observers.settled(outcome, delivery);
	}

}

package dev.exactlyonce.listener;

import java.time.Duration;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import dev.exactlyonce.autoconfigure.ExactlyOnceProperties.AbandonedPolicy;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * The exactly-once advice around a listener method: claim the key, start the working acks (and the
 * delivery's durable steps), invoke, write the completion record. It decides how the container settles the delivery but never acks
 * itself. Calls with no delivery bound to the thread (direct calls) pass straight through.
 */
public final class ExactlyOnceInterceptor implements MethodInterceptor {

	private final WorkingAcks workingAcks;

	private final CompletionWriter completionWriter;

	private final PipelineObservers observers;

	private final ClaimAttempts claims;

	private final IdempotencyStore store;

	private final Steps steps;

	ExactlyOnceInterceptor(IdempotencyStore store, WorkingAcks workingAcks, CompletionWriter completionWriter,
			Steps steps, PipelineObservers observers, String owner) {
		this.store = store;
		this.steps = steps;
		this.workingAcks = workingAcks;
		this.completionWriter = completionWriter;
		this.observers = observers;
		this.claims = new ClaimAttempts(store, owner);
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Delivery delivery = DeliveryBinding.current();
		if (delivery == null || !delivery.enter()) {
			return invocation.proceed();
		}
		ClaimAttempts.Answer answer;
		try {
			answer = this.claims.claim(delivery);
		}
		catch (StoreUnavailableException ex) {
			delivery.settle(new Settlement.StoreUnavailable(ex));
			return null;
		}
		if (!(answer.result() instanceof ClaimResult.Acquired acquired)) {
			delivery.settle(settlementWithoutClaim(answer.result()));
			return null;
		}
		if (leaseEndsBeforeFirstRenewal(delivery.settings(), answer.answeredAfter())) {
			releaseUnrun(delivery, acquired, answer.answeredAfter());
			return null;
		}
		delivery.claimed(acquired.claim(), acquired.previousAttempt());
		this.observers.reached(PipelinePoint.CLAIMED, delivery);
		if (delivery.settings().isLastKeyAttempt(acquired.claim().attempt() - 1)) {
			delivery.settle(new Settlement.KeyAttemptsExhausted(acquired.claim().attempt() - 1));
			return null;
		}
		if (isAbandonedToDeadLetter(delivery, acquired)) {
			delivery.settle(new Settlement.AbandonedToDeadLetter());
			return null;
		}
		WorkingAcks.Heartbeat heartbeat = this.workingAcks.start(delivery);
		delivery.stepsOpened(this.steps.open(delivery, heartbeat, acquired.journal()));
		try {
			this.observers.reached(PipelinePoint.INVOKING, delivery);
			Object value = proceedTimed(invocation, delivery);
			if (!delivery.takeSettlementForWorker()) {
				return value;
			}
			this.observers.reached(PipelinePoint.HANDLED, delivery);
			Settlement settlement = Uninterrupted.call(() -> this.completionWriter.write(delivery, heartbeat, value));
			delivery.settle(settlement);
			if (settlement instanceof Settlement.Processed) {
				this.observers.reached(PipelinePoint.COMPLETED, delivery);
			}
			return value;
		}
		finally {
			heartbeat.stop();
		}
	}

	/**
	 * Whether an abandoned attempt is parked without running the handler again: with on-abandoned
	 * dead-letter, unless the handler journaled steps, whose replay resumes it and whose interrupted
	 * step applies the policy itself ({@link StepInterruptedException}).
	 */
	private static boolean isAbandonedToDeadLetter(Delivery delivery, ClaimResult.Acquired acquired) {
		return acquired.previousAttempt() != null && acquired.previousAttempt().abandoned()
				&& delivery.settings().onAbandoned() == AbandonedPolicy.DEAD_LETTER && acquired.journal().isEmpty();
	}

	private Object proceedTimed(MethodInvocation invocation, Delivery delivery) throws Throwable {
		long started = System.nanoTime();
		try {
			return invocation.proceed();
		}
		finally {
			this.observers.timed(PipelineTiming.HANDLER, delivery, Duration.ofNanos(System.nanoTime() - started));
		}
	}

	/**
	 * Whether a claim answered this long after it was sent may have too little lease left to reach
	 * the first renewal: the store started the lease no earlier than the request was sent.
	 */
	private static boolean leaseEndsBeforeFirstRenewal(ConsumerSettings settings, Duration answeredAfter) {
		return answeredAfter.plus(settings.workingAckInterval()).compareTo(settings.lease()) >= 0;
	}

	/** Gives a claim answered too late back without running the handler; the delivery is retried. */
	private void releaseUnrun(Delivery delivery, ClaimResult.Acquired acquired, Duration answeredAfter) {
		String reason = "claim answered " + answeredAfter.toMillis() + " ms after it was sent: its lease of "
				+ delivery.settings().lease() + " would end before the first renewal (working-ack interval "
				+ delivery.settings().workingAckInterval() + "), so the handler was not run";
		try {
			Uninterrupted.run(() -> this.store.release(acquired.claim(), reason));
		}
		catch (RuntimeException ex) {
			// not released: the claim ends with its lease, which has (nearly) run out
		}
		delivery.settle(new Settlement.StoreUnavailable(new StoreUnavailableException(
				reason + "; lower the store's call timeout or raise exactlyonce.store.lease", null)));
	}

	private static Settlement settlementWithoutClaim(ClaimResult result) {
		if (result instanceof ClaimResult.Completed) {
			return new Settlement.Duplicate();
		}
		if (result instanceof ClaimResult.HeldElsewhere held) {
			return new Settlement.HeldElsewhere(held.leaseUntil());
		}
		return new Settlement.AlreadyDeadLettered();
	}

}

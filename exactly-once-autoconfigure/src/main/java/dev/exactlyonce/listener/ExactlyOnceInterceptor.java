package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.children.spi.JournaledResult;
import dev.exactlyonce.children.spi.TaskChildren;
import dev.exactlyonce.limits.spi.TaskLimits;
import dev.exactlyonce.listener.logging.SettlementLog;
import dev.exactlyonce.listener.logging.TakeoverLog;
import dev.exactlyonce.steps.spi.StepSession;
import dev.exactlyonce.steps.spi.TaskSteps;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.waits.spi.TaskWaits;
import dev.exactlyonce.waits.spi.WaitSession;
import dev.exactlyonce.waits.spi.WaitSuspension;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * The exactly-once advice around a listener method: claim the key, start the working acks (and the
 * delivery's durable steps), invoke, write the completion record. It decides how the container settles the delivery but never acks
 * itself. Calls with no delivery bound to the thread (direct calls) pass straight through.
 */
public final class ExactlyOnceInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(ExactlyOnceInterceptor.class);

	private final WorkingAcks workingAcks;

	private final CompletionWriter completionWriter;

	private final PipelineObservers observers;

	private final ClaimAttempts claims;

	private final IdempotencyStore store;

	private final TaskSteps steps;

	/** How long a step's DONE entry is retried while the store is unavailable. */
	private final Duration doneRetryTimeout;

	private final CompletionParking parking;

	private volatile HandlerTransactions transactions;

	private volatile TaskWaits waits;

	private volatile TaskChildren children;

	private volatile TaskLimits limits;

	ExactlyOnceInterceptor(IdempotencyStore store, WorkingAcks workingAcks, CompletionWriter completionWriter,
			TaskSteps steps, Duration doneRetryTimeout, PipelineObservers observers, String owner,
			CompletionParking parking) {
		this.store = store;
		this.parking = parking;
		this.steps = steps;
		this.doneRetryTimeout = doneRetryTimeout;
		this.workingAcks = workingAcks;
		this.completionWriter = completionWriter;
		this.observers = observers;
		this.claims = new ClaimAttempts(store, workingAcks, owner);
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Delivery delivery = DeliveryBinding.current();
		if (delivery == null || !delivery.enter()) {
			return invocation.proceed();
		}
		ClaimResult result;
		try {
			result = this.claims.claim(delivery);
		}
		catch (StoreUnavailableException ex) {
			delivery.settle(new Settlement.StoreUnavailable(ex));
			return null;
		}
		if (!(result instanceof ClaimResult.Acquired acquired)) {
			delivery.settle(settlementWithoutClaim(result));
			return null;
		}
		delivery.claimed(acquired.claim(), acquired.previousAttempt());
		logTakeover(delivery, acquired.previousAttempt());
		if (recoveredParkedCompletion(delivery, acquired)) {
			return null;
		}
		if (delivery.stopping()) {
			releaseUnrun(delivery);
			return null;
		}
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
		DeliveryTask task = new DeliveryTask(delivery, heartbeat, this.store, this.observers, this.doneRetryTimeout,
				acquired.run());
		StepSession steps = task.openSteps(this.steps, acquired.journal());
		WaitingTask waiting = openWaits(delivery, task);
		openLimits(delivery, waiting);
		boolean completingLater = false;
		try {
			this.observers.reached(PipelinePoint.INVOKING, delivery);
			if (delivery.endpoint().transactional()) {
				return invokeInTransaction(invocation, delivery, heartbeat, steps, waiting);
			}
			WaitSuspension[] suspended = new WaitSuspension[1];
			Optional<JournaledResult> reported = earlierChildResult(invocation, waiting, acquired);
			Object value = reported.isPresent() ? reported.get().value()
					: proceedToSuspension(invocation, delivery, steps, suspended);
			Object completed = reported.isPresent() ? reported.get().summarized() : value;
			if (suspended[0] != null) {
				WaitSuspension at = suspended[0];
				if (delivery.takeSettlementForWorker()) {
					Uninterrupted.run(() -> this.waits.suspend(waiting, at));
					delivery.settle(new Settlement.Suspended(at.waitingFor()));
					this.observers.reached(PipelinePoint.SUSPENDED, delivery);
				}
				return null;
			}
			reportToParent(delivery, waiting, value);
			if (!delivery.takeSettlementForWorker()) {
				return value;
			}
			this.observers.reached(PipelinePoint.HANDLED, delivery);
			if (delivery.completions() != null) {
				delivery.settleLater(completeLater(delivery, heartbeat, completed));
				completingLater = true;
				return value;
			}
			Settlement settlement = Uninterrupted.call(() -> this.completionWriter.write(delivery, heartbeat, completed));
			delivery.settle(settlement);
			if (settlement instanceof Settlement.Processed) {
				this.observers.reached(PipelinePoint.COMPLETED, delivery);
			}
			return value;
		}
		finally {
			delivery.closeLimits();
			if (!completingLater) {
				heartbeat.stop();
			}
		}
	}

	/**
	 * Writes the completion record off the handler's thread (pipelined listeners); the heartbeat
	 * keeps the message and lease alive until the write ended. The result fails only when an
	 * observer halted the pipeline at {@link PipelinePoint#COMPLETED} or the write threw an
	 * {@link Error}: the delivery is then left unsettled.
	 */
	private CompletableFuture<Settlement> completeLater(Delivery delivery, WorkingAcks.Heartbeat heartbeat,
			Object value) {
		return this.completionWriter.writeLater(delivery, heartbeat, value, delivery.completions())
			.whenComplete((settlement, ex) -> heartbeat.stop())
			.thenApply((settlement) -> {
				if (settlement instanceof Settlement.Processed) {
					this.observers.reached(PipelinePoint.COMPLETED, delivery);
				}
				return settlement;
			});
	}

	/**
	 * Runs the handler and writes the completion record in one transaction, which commits only when
	 * the record was written (a zombie's completion matches no row: its writes roll back with it).
	 * The steps' DONE entries are journaled in the transaction too, just before the record, so a
	 * rolled-back step is left STARTED for the next attempt. The working acks stop before the commit
	 * (the record is written), and the delivery is settled, so acked, only after the commit. A
	 * handler failure, a failed record write or a failed commit reaches the container as the
	 * handler's failure (release and retry).
	 */
	private Object invokeInTransaction(MethodInvocation invocation, Delivery delivery, WorkingAcks.Heartbeat heartbeat,
			StepSession steps, WaitingTask waiting) throws Throwable {
		Object[] value = new Object[1];
		Settlement[] settlement = new Settlement[1];
		this.transactions.run(() -> {
			WaitSuspension[] suspended = new WaitSuspension[1];
			value[0] = proceedToSuspension(invocation, delivery, steps, suspended);
			WaitSuspension suspension = suspended[0];
			if (suspension != null) {
				if (!delivery.takeSettlementForWorker()) {
					return false;
				}
				// the writes before the wait commit with its steps and the WAITING record: a checkpoint
				settlement[0] = Uninterrupted.call(() -> heartbeat.exclusive(() -> {
					steps.commitSteps();
					this.waits.suspend(waiting, suspension);
					heartbeat.stop();
					return new Settlement.Suspended(suspension.waitingFor());
				}));
				return true;
			}
			reportToParent(delivery, waiting, value[0]);
			if (!delivery.takeSettlementForWorker()) {
				return false;
			}
			this.observers.reached(PipelinePoint.HANDLED, delivery);
			// One hold of the heartbeat's store lock from the first write in the transaction (which locks
			// the record's row until the commit) to the end of the heartbeat: a renewal waiting on that row
			// while holding the lock would wait on this thread, which would wait on the lock, for ever.
			settlement[0] = Uninterrupted.call(() -> heartbeat.exclusive(() -> {
				steps.commitSteps();
				Settlement written = this.completionWriter.writeInTransaction(delivery, heartbeat, value[0]);
				heartbeat.stop();
				return written;
			}));
			return settlement[0] instanceof Settlement.Processed;
		});
		if (settlement[0] != null) {
			delivery.settle(settlement[0]);
			if (settlement[0] instanceof Settlement.Processed) {
				this.observers.reached(PipelinePoint.COMPLETED, delivery);
			}
			else if (settlement[0] instanceof Settlement.Suspended) {
				this.observers.reached(PipelinePoint.SUSPENDED, delivery);
			}
		}
		return value[0];
	}

	/**
	 * Parks the completion of a delivery whose handler returned and whose record is still being written.
	 * @param delivery the delivery
	 */
	void parkIfUnrecorded(Delivery delivery) {
		this.completionWriter.parkIfUnrecorded(delivery);
	}

	/**
	 * Lets handlers wait durably ({@link ExactlyOnceContext#awaitSignal}, {@link ExactlyOnceContext#sleep}).
	 * @param waits the durable waits
	 */
	void useWaits(TaskWaits waits) {
		this.waits = waits;
	}

	/**
	 * Lets handlers start and await child tasks ({@link ExactlyOnceContext#startChild}), and reports
	 * a child's result to its parent.
	 * @param children the child tasks
	 */
	void useChildren(TaskChildren children) {
		this.children = children;
	}

	/**
	 * Reports a child's result to its parent before its completion record (nothing for other tasks);
	 * {@link PipelinePoint#CHILD_RESULT_STORED} once it is stored, before the parent is resumed.
	 */
	private void reportToParent(Delivery delivery, WaitingTask waiting, Object value) {
		TaskChildren taskChildren = this.children;
		if (taskChildren != null && waiting != null) {
			Uninterrupted.run(() -> taskChildren.completing(waiting, value,
					() -> this.observers.reached(PipelinePoint.CHILD_RESULT_STORED, delivery)));
		}
	}

	/**
	 * What an earlier attempt of a child's run returned and journaled before its report to the parent
	 * failed: reported again without running the handler again (its work outside steps is not
	 * repeated), as a parked completion is written without it.
	 */
	private Optional<JournaledResult> earlierChildResult(MethodInvocation invocation, WaitingTask waiting,
			ClaimResult.Acquired acquired) {
		TaskChildren taskChildren = this.children;
		if (taskChildren == null || waiting == null || acquired.journal().isEmpty()) {
			return Optional.empty();
		}
		return taskChildren.earlierResult(waiting, acquired.journal(), invocation.getMethod().getGenericReturnType());
	}

	/**
	 * Lets listeners and steps run under limits ({@code exactlyonce.limits}).
	 * @param limits the limits
	 */
	void useLimits(TaskLimits limits) {
		this.limits = limits;
	}

	/** The limits, once {@link #useLimits} was called, else {@code null}. */
	TaskLimits limits() {
		return this.limits;
	}

	/**
	 * Runs the handler; a durable wait's suspension, thrown, wrapped in another exception or swallowed
	 * by the handler, is put in {@code suspended} (the handler's value is then {@code null}). The
	 * steps' DONE entries still held are journaled before anything else is written for the delivery:
	 * a failure to do so fails the delivery, or, after the handler failed, is logged with it.
	 */
	private Object proceedToSuspension(MethodInvocation invocation, Delivery delivery, StepSession steps,
			WaitSuspension[] suspended) throws Throwable {
		Object value;
		try {
			value = proceedTimed(invocation, delivery);
		}
		catch (Throwable failure) {
			suspended[0] = WaitSuspension.in(failure);
			if (suspended[0] == null) {
				flushAfterFailure(delivery, steps, failure);
				throw failure;
			}
			steps.flush();
			return null;
		}
		steps.flush();
		suspended[0] = swallowedSuspension(delivery);
		return (suspended[0] != null) ? null : value;
	}

	/**
	 * Journals the held DONE entries of a handler that failed, unless an observer halted it (which
	 * stands for a crash); a failure to is added to the handler's and logged: those steps look
	 * unfinished to the next attempt.
	 */
	private static void flushAfterFailure(Delivery delivery, StepSession steps, Throwable failure) {
		if (failure instanceof PipelineHaltedException) {
			return;
		}
		try {
			steps.flush();
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
			logger.warn("Finished steps of the message at " + delivery.describe() + " not journaled after its handler "
					+ "failed (" + ex.getMessage() + "); the next attempt treats them as unfinished");
		}
	}

	/**
	 * The suspension of a wait whose handler swallowed it (caught {@code Throwable}) and returned: the
	 * task is suspended all the same, its return value dropped, and the swallowing is logged.
	 */
	private static WaitSuspension swallowedSuspension(Delivery delivery) {
		WaitSuspension thrown = delivery.thrownSuspension();
		if (thrown != null) {
			SettlementLog.suspensionSwallowed(delivery.describe(), delivery.key(), thrown.waitingFor());
		}
		return thrown;
	}

	/** Opens the durable waits of a claimed delivery, when there are any. */
	private WaitingTask openWaits(Delivery delivery, DeliveryTask waiting) {
		TaskWaits taskWaits = this.waits;
		if (taskWaits == null) {
			return null;
		}
		WaitSession session = taskWaits.open(waiting);
		delivery.waitsOpened(session);
		TaskChildren taskChildren = this.children;
		if (taskChildren != null) {
			delivery.childrenOpened(taskChildren.open(waiting, session));
		}
		return waiting;
	}

	/** Opens the limits of a claimed delivery, when there are any (they suspend tasks like waits). */
	private void openLimits(Delivery delivery, WaitingTask waiting) {
		TaskLimits taskLimits = this.limits;
		if (taskLimits != null && waiting != null) {
			delivery.limitsOpened(taskLimits.open(waiting, delivery.settings().lease()));
		}
	}

	/**
	 * Lets transactional listeners run their handler and completion in one transaction.
	 * @param transactions the application's transactions
	 */
	void useTransactions(HandlerTransactions transactions) {
		this.transactions = transactions;
	}

	/** The transactions of transactional listeners, once {@link #useTransactions} was called. */
	HandlerTransactions transactions() {
		return this.transactions;
	}

	/**
	 * Whether transactional listeners can run.
	 * @return {@code true} once {@link #useTransactions} was called
	 */
	boolean hasTransactions() {
		return this.transactions != null;
	}

	/**
	 * Records the completion that the attempt this claim took over had parked (its handler finished,
	 * the store could not take the record before it stopped or died) instead of running the handler
	 * again; also while the listener stops (it is one record write, not a run). Only a completion
	 * parked under that attempt's own fencing token counts; it is parked again under this claim's
	 * token before the record is written, so that a crash from here on leaves it to the next attempt.
	 * The lookup is retried, the message held, for at most one lease while NATS does not answer; then
	 * the delivery is retried later (see docs/pipeline.md, "What happens when").
	 * @return {@code true} when the delivery is settled here
	 */
	private boolean recoveredParkedCompletion(Delivery delivery, ClaimResult.Acquired acquired) {
		PreviousAttempt previous = acquired.previousAttempt();
		if (previous == null || previous.token() == null) {
			return false;
		}
		WorkingAcks.Heartbeat heartbeat = this.workingAcks.start(delivery);
		try {
			Optional<CompletionParking.Parked> parked;
			long giveUpAt = System.nanoTime() + delivery.settings().lease().toNanos();
			try {
				parked = Uninterrupted.call(() -> StoreWriteRetry.writeUntil(
						() -> this.parking.find(delivery.storeKey()), () -> delivery.closed() || System.nanoTime() > giveUpAt,
						(ex, wait) -> logger.warn("Parked completion for the message at " + delivery.describe()
								+ " not readable, retrying in " + wait + ": " + ex.getMessage())));
			}
			catch (StoreUnavailableException ex) {
				delivery.settle(new Settlement.StoreUnavailable(ex));
				return true;
			}
			if (parked.isEmpty() || !previous.token().equals(parked.get().token())
					|| !delivery.takeSettlementForWorker()) {
				return false;
			}
			Completion completion = parked.get().completion();
			delivery.settle(Uninterrupted.call(() -> this.completionWriter.writeRecovered(delivery, heartbeat,
					completion)));
			return true;
		}
		finally {
			heartbeat.stop();
		}
	}

	/** Says when this attempt took over the claim of one that died mid-work, and what happens now. */
	private static void logTakeover(Delivery delivery, PreviousAttempt previous) {
		if (previous != null && previous.abandoned()) {
			TakeoverLog.claimTakenOver(delivery.describe(), delivery.key(), previous.owner(), previous.startedAt(),
					(delivery.settings().onAbandoned() == AbandonedPolicy.DEAD_LETTER)
							? "it is dead-lettered unless its journal lets it resume (on-abandoned: dead-letter)"
							: "it runs again (on-abandoned: retry)");
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
		delivery.enterListenerLimit();
		long started = System.nanoTime();
		delivery.handlerRunning();
		try {
			return invocation.proceed();
		}
		finally {
			delivery.handlerReturned();
			this.observers.timed(PipelineTiming.HANDLER, delivery, Duration.ofNanos(System.nanoTime() - started));
		}
	}

	/** Gives back a claim acquired while the listener stops, so another instance runs it at once. */
	private void releaseUnrun(Delivery delivery) {
		try {
			Uninterrupted.run(() -> this.store.release(delivery.claim(), IdempotencyStore.RELEASED_BY_SHUTDOWN));
		}
		catch (RuntimeException ex) {
			// not released: the claim ends with its lease
		}
		delivery.settle(new Settlement.StoreUnavailable(
				new StoreUnavailableException("claim given up unrun: the listener is stopping", null)));
	}

	private static Settlement settlementWithoutClaim(ClaimResult result) {
		if (result instanceof ClaimResult.Completed || result instanceof ClaimResult.Waiting) {
			return new Settlement.Duplicate();
		}
		if (result instanceof ClaimResult.HeldElsewhere held) {
			return new Settlement.HeldElsewhere(held.owner(), held.leaseUntil());
		}
		return new Settlement.AlreadyDeadLettered();
	}

}

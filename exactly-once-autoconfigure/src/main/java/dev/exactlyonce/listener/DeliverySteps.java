package dev.exactlyonce.listener;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.steps.spi.StepSession;
import dev.exactlyonce.steps.spi.SteppingTask;
import dev.exactlyonce.steps.spi.TaskSteps;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.store.RecordTooLargeException;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;

/**
 * Opens the durable steps ({@link TaskSteps}) of each claimed delivery, and journals their entries
 * for them: fenced by the delivery's claim, serialised with its lease renewals, with the interrupt
 * flag cleared, retried while the store is unavailable; tells the observers what each step did.
 */
final class DeliverySteps {

	private static final Log logger = LogFactory.getLog(DeliverySteps.class);

	private final TaskSteps steps;

	private final IdempotencyStore store;

	private final PipelineObservers observers;

	private final Duration doneRetryTimeout;

	DeliverySteps(TaskSteps steps, IdempotencyStore store, PipelineObservers observers, Duration doneRetryTimeout) {
		this.steps = steps;
		this.store = store;
		this.observers = observers;
		this.doneRetryTimeout = doneRetryTimeout;
	}

	/** The steps of a delivery that holds its claim, replaying what earlier attempts journaled. */
	StepSession open(Delivery delivery, WorkingAcks.Heartbeat heartbeat, StepJournal journal) {
		return this.steps.open(new Task(delivery, heartbeat), journal);
	}

	/** A claimed delivery as its steps see it. */
	private final class Task implements SteppingTask {

		private final Delivery delivery;

		private final WorkingAcks.Heartbeat heartbeat;

		Task(Delivery delivery, WorkingAcks.Heartbeat heartbeat) {
			this.delivery = delivery;
			this.heartbeat = heartbeat;
		}

		@Override
		public String describe() {
			return this.delivery.describe();
		}

		@Override
		public String listener() {
			return this.delivery.endpoint().describe();
		}

		@Override
		public String consumer() {
			return this.delivery.consumer();
		}

		@Override
		public String key() {
			return this.delivery.key();
		}

		@Override
		public String storeKey() {
			return this.delivery.storeKey();
		}

		@Override
		public int attempt() {
			return this.delivery.claim().attempt();
		}

		@Override
		public String token() {
			return this.delivery.claim().token();
		}

		@Override
		public String previousOwner() {
			return this.delivery.previousAttempt().map(PreviousAttempt::owner).orElse("unknown");
		}

		@Override
		public boolean deadLettersAbandoned() {
			return this.delivery.settings().onAbandoned() == AbandonedPolicy.DEAD_LETTER;
		}

		@Override
		public boolean stepsInTransaction() {
			return this.delivery.endpoint().transactional() && this.delivery.endpoint().stepsInTransaction();
		}

		/**
		 * Retried while the store is unavailable: a {@code DONE} entry (its action already ran and may
		 * not be repeatable) as long as a completion record ({@code completion-retry-timeout}; a write
		 * after the lease is still accepted while nobody took the claim over), any other entry for as
		 * long as the lease lasts; never after the listener closed (its shutdown timeout ran out: the
		 * next attempt's probe or abandoned policy decides the step).
		 */
		@Override
		public void journal(StepRecord step) {
			Delivery delivery = this.delivery;
			Duration retryFor = (step.state() == StepState.DONE) ? DeliverySteps.this.doneRetryTimeout
					: delivery.leaseLeft();
			long deadline = System.nanoTime() + retryFor.toNanos();
			try {
				Uninterrupted.call(() -> StoreWriteRetry.writeUntil(() -> this.heartbeat.exclusive(() -> {
					DeliverySteps.this.store.recordStep(delivery.claim(), step);
					return step;
				}), () -> delivery.closed() || System.nanoTime() > deadline, (ex, wait) -> logger.warn("Step '"
						+ step.name() + "' of the message at " + delivery.describe() + " not journaled as "
						+ step.state() + ", retrying in " + wait + ": " + ex.getMessage())));
			}
			catch (RecordTooLargeException ex) {
				throw new StepRejectedException("Step '" + step.name() + "' of the message at " + delivery.describe()
						+ " cannot be journaled: " + ex.getMessage(), ex);
			}
		}

		/** Written once: a failure is the transaction's (it rolls back), so nothing is retried here. */
		@Override
		public void journalInTransaction(StepRecord step) {
			Uninterrupted.call(() -> this.heartbeat.exclusive(() -> {
				DeliverySteps.this.store.recordStepWithTransaction(this.delivery.claim(), step);
				return step;
			}));
		}

		@Override
		public void performed(String step) {
			DeliverySteps.this.observers.stepPerformed(this.delivery, step);
		}

		@Override
		public void stepped(String step, StepOutcome outcome) {
			DeliverySteps.this.observers.step(this.delivery, step, outcome);
		}

		@Override
		public boolean halts(RuntimeException failure) {
			return failure instanceof PipelineHaltedException;
		}

	}

}

package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.Optional;

import io.nats.client.Message;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.steps.spi.StepSession;
import dev.exactlyonce.steps.spi.SteppingTask;
import dev.exactlyonce.steps.spi.TaskSteps;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.store.RecordTooLargeException;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * A claimed delivery as its durable steps and waits see it: one journal (one name space for steps
 * and waits) and its {@code WAITING} record, written fenced by its claim, serialised with the lease
 * renewals, with the interrupt flag cleared; the observers told what each step did.
 */
final class DeliveryTask implements SteppingTask, WaitingTask {

	private static final Log logger = LogFactory.getLog(DeliveryTask.class);

	private final Delivery delivery;

	private final WorkingAcks.Heartbeat heartbeat;

	private final IdempotencyStore store;

	private final PipelineObservers observers;

	private final Duration doneRetryTimeout;

	private final int run;

	private volatile StepSession steps;

	DeliveryTask(Delivery delivery, WorkingAcks.Heartbeat heartbeat, IdempotencyStore store,
			PipelineObservers observers, Duration doneRetryTimeout, int run) {
		this.delivery = delivery;
		this.heartbeat = heartbeat;
		this.store = store;
		this.observers = observers;
		this.doneRetryTimeout = doneRetryTimeout;
		this.run = run;
	}

	/** Opens the delivery's steps, replaying what earlier attempts journaled; its waits share their journal. */
	StepSession openSteps(TaskSteps taskSteps, StepJournal earlierAttempts) {
		this.steps = taskSteps.open(this, earlierAttempts);
		this.delivery.stepsOpened(this.steps);
		return this.steps;
	}

	@Override
	public String storeKey() {
		return this.delivery.storeKey();
	}

	@Override
	public String key() {
		return this.delivery.key();
	}

	@Override
	public String consumer() {
		return this.delivery.consumer();
	}

	@Override
	public String stream() {
		return this.delivery.stream();
	}

	@Override
	public int run() {
		return this.run;
	}

	@Override
	public String token() {
		return this.delivery.claim().token();
	}

	@Override
	public int attempt() {
		return this.delivery.claim().attempt();
	}

	@Override
	public Message message() {
		return this.delivery.message();
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

	@Override
	public Optional<StepRecord> begin(String name) {
		return Optional.ofNullable(this.steps.beginWait(name));
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
		Duration retryFor = (step.state() == StepState.DONE) ? this.doneRetryTimeout : this.delivery.leaseLeft();
		long deadline = System.nanoTime() + retryFor.toNanos();
		try {
			Uninterrupted.call(() -> StoreWriteRetry.writeUntil(() -> this.heartbeat.exclusive(() -> {
				this.store.recordStep(this.delivery.claim(), step);
				return step;
			}), () -> this.delivery.closed() || System.nanoTime() > deadline, (ex, wait) -> logger.warn("Step '"
					+ step.name() + "' of the message at " + describe() + " not journaled as " + step.state()
					+ ", retrying in " + wait + ": " + ex.getMessage())));
		}
		catch (RecordTooLargeException ex) {
			throw new StepRejectedException("Step '" + step.name() + "' of the message at " + describe()
					+ " cannot be journaled: " + ex.getMessage(), ex);
		}
	}

	/** Written once: a failure is the transaction's (it rolls back), so nothing is retried here. */
	@Override
	public void journalInTransaction(StepRecord step) {
		Uninterrupted.call(() -> this.heartbeat.exclusive(() -> {
			this.store.recordStepWithTransaction(this.delivery.claim(), step);
			return step;
		}));
	}

	@Override
	public void recordWaiting(Completion waiting) {
		Uninterrupted.call(() -> this.heartbeat.exclusive(() -> {
			IdempotencyRecord written = this.store.complete(this.delivery.claim(), waiting);
			this.heartbeat.recorded();
			return written;
		}));
	}

	@Override
	public void performed(String step) {
		this.observers.stepPerformed(this.delivery, step);
	}

	@Override
	public void stepped(String step, StepOutcome outcome) {
		this.observers.step(this.delivery, step, outcome);
	}

	@Override
	public boolean halts(RuntimeException failure) {
		return failure instanceof PipelineHaltedException;
	}

}

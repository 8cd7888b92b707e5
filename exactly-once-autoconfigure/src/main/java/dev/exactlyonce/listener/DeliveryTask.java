package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import io.nats.client.Message;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.steps.spi.StepSession;
import dev.exactlyonce.steps.spi.SteppingTask;
import dev.exactlyonce.steps.spi.TaskSteps;
import dev.exactlyonce.store.ClaimLostException;
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
	 * Retried while the store is unavailable: entries with a {@code DONE} one (its action already ran
	 * and may not be repeatable) as long as a completion record ({@code completion-retry-timeout}; a
	 * write after the lease is still accepted while nobody took the claim over), others for as long
	 * as the lease lasts; never after the listener closed (its shutdown timeout ran out: the next
	 * attempt's probe or abandoned policy decides the step). Entries too large together are
	 * journaled one by one, so the error names the entry that does not fit.
	 */
	@Override
	public void journal(List<StepRecord> entries) {
		boolean done = entries.stream().anyMatch((entry) -> entry.state() == StepState.DONE);
		Duration retryFor = done ? this.doneRetryTimeout : this.delivery.leaseLeft();
		long deadline = System.nanoTime() + retryFor.toNanos();
		try {
			Uninterrupted.call(() -> StoreWriteRetry.writeUntil(() -> this.heartbeat.exclusive(() -> {
				this.store.recordSteps(this.delivery.claim(), entries);
				return entries;
			}), () -> this.delivery.closed() || System.nanoTime() > deadline, (ex, wait) -> logger.warn("Step '"
					+ names(entries) + "' of the message at " + describe() + " not journaled as " + states(entries)
					+ ", retrying in " + wait + ": " + ex.getMessage())));
		}
		catch (RecordTooLargeException ex) {
			if (entries.size() > 1) {
				entries.forEach((entry) -> journal(List.of(entry)));
				return;
			}
			throw new StepRejectedException("Step '" + names(entries) + "' of the message at " + describe()
					+ " cannot be journaled: " + ex.getMessage(), ex);
		}
	}

	private static String names(List<StepRecord> entries) {
		return entries.stream().map(StepRecord::name).collect(Collectors.joining("', '"));
	}

	private static String states(List<StepRecord> entries) {
		return entries.stream().map((entry) -> entry.state().name()).collect(Collectors.joining(", "));
	}

	/**
	 * One attempt, on the timer's thread: after a failure the entries stay held, tried again later;
	 * after a lost claim they never can be journaled (the handler's next write finds the claim lost).
	 */
	@Override
	public boolean tryJournal(List<StepRecord> entries) {
		if (this.delivery.closed()) {
			return false;
		}
		try {
			this.heartbeat.exclusive(() -> {
				this.store.recordSteps(this.delivery.claim(), entries);
				return entries;
			});
			return true;
		}
		catch (ClaimLostException ex) {
			return true;
		}
		catch (RuntimeException ex) {
			logger.debug("Step '" + names(entries) + "' of the message at " + describe() + " not journaled by the timer ("
					+ ex.getMessage() + "); tried again later, and journaled with the handler's next write at the latest");
			return false;
		}
	}

	/** A wait's entry or a child's result, with the steps' DONE entries still held before it. */
	@Override
	public void journal(StepRecord entry) {
		this.steps.journal(entry);
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

package dev.exactlyonce.steps;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.listener.StepAction;
import dev.exactlyonce.listener.StepInterruptedException;
import dev.exactlyonce.listener.StepOutcome;
import dev.exactlyonce.listener.StepProbe;
import dev.exactlyonce.listener.StepRejectedException;
import dev.exactlyonce.listener.logging.TakeoverLog;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishResult;
import dev.exactlyonce.steps.spi.StepSession;
import dev.exactlyonce.steps.spi.SteppingTask;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;

/**
 * The durable steps of one claimed delivery: decides per step whether to replay a journaled result,
 * probe for the side effect of an unfinished earlier run, or run the action, and journals what it
 * does. The journal it replays is the one the claim carried over from earlier attempts.
 */
final class TaskStepSession implements StepSession {

	private static final Log logger = LogFactory.getLog(TaskStepSession.class);

	private final DurableSteps steps;

	private final SteppingTask task;

	private final StepJournal earlierAttempts;

	private final Set<String> names = ConcurrentHashMap.newKeySet();

	/** The step whose action (or probe) runs on a thread: a wait there is refused. */
	private final ThreadLocal<String> runningStep = new ThreadLocal<>();

	/** DONE entries of a transactional listener, journaled with its transaction just before it commits. */
	private final List<StepRecord> uncommitted = new CopyOnWriteArrayList<>();

	private final CoalescedJournal journal;

	TaskStepSession(DurableSteps steps, SteppingTask task, StepJournal earlierAttempts, HeldDoneSweep sweep) {
		this.steps = steps;
		this.task = task;
		this.earlierAttempts = earlierAttempts;
		this.journal = new CoalescedJournal(task, sweep);
	}

	@Override
	public <T> T run(String name, ParameterizedTypeReference<T> type, StepAction<T> action, StepProbe<T> probe) {
		StepRecord earlier = begin(name);
		if (earlier != null && earlier.state() == StepState.DONE) {
			return observed(name, StepOutcome.REPLAYED, this.steps.fromJson(this.task, earlier, type));
		}
		String origin = origin(earlier);
		// Every STARTED entry of the journal the claim carried over was written by another claim (this
		// one has started nothing yet, and a name runs once per run): decided by the claim, never by
		// comparing attempt numbers, which a shutdown release gives back and a replay resets.
		if (earlier == null || earlier.state() != StepState.STARTED) {
			return execute(name, type, origin, (id) -> action.run(), StepOutcome.EXECUTED);
		}
		if (probe != null) {
			Optional<T> found = call(name, probe::find);
			if (found == null) {
				throw new StepRejectedException("The probe of step '" + name + "' of listener "
						+ this.task.listener() + " returned null: return Optional.empty() when the "
						+ "side effect is absent, Optional.of(result) when it happened", null);
			}
			TakeoverLog.probed(this.task.describe(), this.task.key(), name, this.task.previousOwner(), found.isPresent());
			if (found.isEmpty()) {
				return execute(name, type, origin, (id) -> action.run(), StepOutcome.PROBE_ABSENT);
			}
			T value = found.get();
			journalDone(StepRecord.found(name, this.task.attempt(),
					this.steps.toJson(this.task, name, value, type), origin, this.steps.now()));
			return observed(name, StepOutcome.PROBE_FOUND, value);
		}
		if (this.task.deadLettersAbandoned()) {
			throw new StepInterruptedException(name, earlier.attempt(), this.task.consumer());
		}
		TakeoverLog.rerunWithoutProbe(this.task.describe(), this.task.key(), name, this.task.previousOwner(),
				"exactlyonce.consumers." + this.task.consumer() + ".on-abandoned");
		return execute(name, type, origin, (id) -> action.run(), StepOutcome.EXECUTED);
	}

	@Override
	public boolean finished(String name) {
		return this.earlierAttempts.find(name).filter((step) -> step.state() == StepState.DONE).isPresent();
	}

	/**
	 * Publishes as a step with the message id {@code <namespace>:<key>/<step>/<origin>}: the same
	 * for every attempt of one run of the task, new after a resubmit. An unfinished earlier run is
	 * simply run again: the server drops the copy within the duplicate window.
	 */
	@Override
	public PublishResult publish(String step, String subject, Object payload) {
		ExactlyOncePublisher publisher = this.steps.publisher(this.task, step);
		ParameterizedTypeReference<PublishResult> type = ParameterizedTypeReference.forType(PublishResult.class);
		StepRecord earlier = begin(step);
		if (earlier != null && earlier.state() == StepState.DONE) {
			return observed(step, StepOutcome.REPLAYED, this.steps.fromJson(this.task, earlier, type));
		}
		return execute(step, type, origin(earlier),
				(origin) -> publisher.publish(subject, payload, messageId(step, origin)), StepOutcome.EXECUTED);
	}

	/**
	 * Checks a wait's name, like a step's, and returns what earlier attempts journaled for it. A wait
	 * inside a step's action is refused: the task would suspend with the step STARTED, and resume
	 * with that step unfinished (probed, run again or dead-lettered as interrupted).
	 */
	@Override
	public StepRecord beginWait(String name) {
		String step = this.runningStep.get();
		if (step != null) {
			throw new StepRejectedException("Wait '" + name + "' is inside the action of step '" + step
					+ "' of listener " + this.task.listener() + " (message at " + this.task.describe()
					+ "): a task cannot suspend in the middle of a step. Wait between steps", null);
		}
		return begin(name);
	}

	/** Checks a step's (or a wait's) name and returns what earlier attempts journaled for it. */
	private StepRecord begin(String name) {
		if (name == null) {
			throw new StepRejectedException("A step of listener " + this.task.listener()
					+ " has no name; give every step a name unique within a run", null);
		}
		if (!this.names.add(name)) {
			throw new StepRejectedException("Step or wait '" + name + "' ran twice in one run of listener "
					+ this.task.listener() + " (message at " + this.task.describe()
					+ "): step and wait names share one name space and must be unique within a run: rename one, add an index to steps run in a loop, or await a child ('<child>.result') once and keep its result", null);
		}
		return this.earlierAttempts.find(name).orElse(null);
	}

	/** The origin of an unfinished earlier run of the step, else this claim's fencing token. */
	private String origin(StepRecord earlier) {
		return (earlier != null && earlier.origin() != null) ? earlier.origin() : this.task.token();
	}

	private String messageId(String step, String origin) {
		return escaped(this.task.storeKey()) + "/" + escaped(step) + "/" + origin;
	}

	/** {@code %} and {@code /} percent-encoded: key {@code a} + step {@code b/c} is not {@code a/b} + {@code c}. */
	private static String escaped(String part) {
		return part.replace("%", "%25").replace("/", "%2F");
	}

	private <T> T execute(String name, ParameterizedTypeReference<T> type, String origin, OriginAction<T> action,
			StepOutcome outcome) {
		StepRecord started = StepRecord.started(name, this.task.attempt(), origin, this.steps.now());
		journal(started);
		T value;
		try {
			value = call(name, () -> action.run(origin));
			this.task.performed(name);
		}
		catch (RuntimeException ex) {
			if (!this.task.halts(ex)) {
				journalFailed(started);
			}
			throw ex;
		}
		// the action ran: a result the starter rejects leaves the step STARTED, to be probed, never FAILED
		String json = this.steps.toJson(this.task, name, value, type);
		journalDone(started.done(json, this.steps.now()));
		return observed(name, outcome, value);
	}

	/** Journals a step's failure; a failure to journal it is logged (the step runs again or is probed). */
	private void journalFailed(StepRecord started) {
		try {
			journal(started.failed(this.steps.now()));
		}
		catch (RuntimeException ex) {
			logger.warn("Failure of step '" + started.name() + "' of the message at " + this.task.describe()
					+ " not journaled (" + ex.getMessage() + "); the next attempt treats it as unfinished");
		}
	}

	/**
	 * Journals a step's DONE entry: with the next entry written (usually the next step's STARTED),
	 * at most {@code exactlyonce.steps.done-delay} later or when the handler ends; or, in a
	 * transactional listener, kept until {@link #commitSteps()} journals it inside the handler's
	 * transaction, so it can never outlive the database writes it stands for. When that transaction
	 * rolls back the step stays STARTED: the next attempt probes it or applies on-abandoned, like a
	 * step cut off by a crash (its action may have had effects outside the database).
	 */
	private void journalDone(StepRecord done) {
		if (this.task.stepsInTransaction()) {
			this.uncommitted.add(done);
		}
		else {
			this.journal.done(done);
		}
	}

	/**
	 * Journals the DONE entries of a transactional listener inside its transaction, once, just before
	 * its completion record; a failure fails the transaction.
	 */
	@Override
	public void commitSteps() {
		for (StepRecord done : this.uncommitted) {
			this.task.journalInTransaction(done);
		}
	}

	@Override
	public void journal(StepRecord step) {
		this.journal.write(step);
	}

	@Override
	public void flush() {
		this.journal.flush();
	}

	private <T> T observed(String name, StepOutcome outcome, T value) {
		this.task.stepped(name, outcome);
		return value;
	}

	/** A step's work, given the origin its side effects are made under. */
	@FunctionalInterface
	private interface OriginAction<T> {

		T run(String origin) throws Exception;

	}

	/**
	 * Calls a step's action or probe; checked exceptions leave as {@link dev.exactlyonce.listener.StepFailedException} (an
	 * {@link InterruptedException} with the thread's interrupt flag restored).
	 */
	private <T> T call(String name, StepAction<T> call) {
		String outer = this.runningStep.get();
		this.runningStep.set(name);
		try {
			return StepSession.callAction(name, call);
		}
		finally {
			if (outer != null) {
				this.runningStep.set(outer);
			}
			else {
				this.runningStep.remove();
			}
		}
	}

}

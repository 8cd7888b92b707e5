package dev.exactlyonce.listener;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishResult;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;

/**
 * The durable steps of one claimed delivery: decides per step whether to replay a journaled result,
 * probe for the side effect of an unfinished earlier run, or run the action, and journals what it
 * does. The journal it replays is the one the claim carried over from earlier attempts.
 */
final class StepSession {

	private static final Log logger = LogFactory.getLog(StepSession.class);

	private final Steps steps;

	private final Delivery delivery;

	private final WorkingAcks.Heartbeat heartbeat;

	private final StepJournal earlierAttempts;

	private final Set<String> names = ConcurrentHashMap.newKeySet();

	StepSession(Steps steps, Delivery delivery, WorkingAcks.Heartbeat heartbeat, StepJournal earlierAttempts) {
		this.steps = steps;
		this.delivery = delivery;
		this.heartbeat = heartbeat;
		this.earlierAttempts = earlierAttempts;
	}

	<T> T run(String name, Class<T> type, StepAction<T> action, StepProbe<T> probe) {
		return run(name, type, action, probe, false);
	}

	/**
	 * Publishes as a step with the message id {@code <namespace>:<key>/<step>}. An unfinished
	 * earlier run is simply run again: the server drops the copy within the duplicate window.
	 */
	PublishResult publish(String step, String subject, Object payload) {
		ExactlyOncePublisher publisher = this.steps.publisher(this.delivery, step);
		String messageId = this.delivery.storeKey() + "/" + step;
		return run(step, PublishResult.class, () -> publisher.publish(subject, payload, messageId), null, true);
	}

	private <T> T run(String name, Class<T> type, StepAction<T> action, StepProbe<T> probe, boolean rerunnable) {
		if (name == null) {
			throw new IllegalArgumentException("A step of listener " + this.delivery.endpoint().describe()
					+ " has no name; give every step a name unique within a run");
		}
		if (!this.names.add(name)) {
			throw new IllegalStateException("Step '" + name + "' ran twice in one run of listener "
					+ this.delivery.endpoint().describe() + " (message at " + this.delivery.describe()
					+ "): step names must be unique within a run, e.g. add an index to steps run in a loop");
		}
		int attempt = this.delivery.claim().attempt();
		StepRecord earlier = this.earlierAttempts.find(name).orElse(null);
		if (earlier != null && earlier.state() == StepState.DONE) {
			return observed(name, StepOutcome.REPLAYED, this.steps.fromJson(this.delivery, earlier, type));
		}
		if (earlier == null || earlier.state() != StepState.STARTED || earlier.attempt() >= attempt || rerunnable) {
			return execute(name, action, StepOutcome.EXECUTED);
		}
		if (probe != null) {
			Optional<T> found = call(name, probe::find);
			if (found.isEmpty()) {
				return execute(name, action, StepOutcome.PROBE_ABSENT);
			}
			T value = found.get();
			journal(StepRecord.found(name, attempt, this.steps.toJson(this.delivery, name, value), this.steps.now()));
			return observed(name, StepOutcome.PROBE_FOUND, value);
		}
		if (this.delivery.settings().onAbandoned() == AbandonedPolicy.DEAD_LETTER) {
			throw new StepInterruptedException(name, earlier.attempt(), this.delivery.consumer());
		}
		return execute(name, action, StepOutcome.EXECUTED);
	}

	private <T> T execute(String name, StepAction<T> action, StepOutcome outcome) {
		StepRecord started = StepRecord.started(name, this.delivery.claim().attempt(), this.steps.now());
		journal(started);
		T value;
		String json;
		try {
			value = call(name, action::run);
			this.steps.observers().stepPerformed(this.delivery, name);
			json = this.steps.toJson(this.delivery, name, value);
		}
		catch (PipelineHaltedException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			journalFailed(started);
			throw ex;
		}
		journal(started.done(json, this.steps.now()));
		return observed(name, outcome, value);
	}

	/** Journals a step's failure; a failure to journal it is logged (the step runs again either way). */
	private void journalFailed(StepRecord started) {
		try {
			journal(started.failed(this.steps.now()));
		}
		catch (RuntimeException ex) {
			logger.warn("Failure of step '" + started.name() + "' of the message at " + this.delivery.describe()
					+ " not journaled (" + ex.getMessage() + "); the next attempt treats it as unfinished");
		}
	}

	private void journal(StepRecord step) {
		this.steps.journal(this.delivery, this.heartbeat, step);
	}

	private <T> T observed(String name, StepOutcome outcome, T value) {
		this.steps.observers().step(this.delivery, name, outcome);
		return value;
	}

	/**
	 * Calls a step's action or probe; checked exceptions leave as {@link StepFailedException} (an
	 * {@link InterruptedException} with the thread's interrupt flag restored).
	 */
	static <T> T call(String name, StepAction<T> call) {
		try {
			return call.run();
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new StepFailedException(name, ex);
		}
		catch (Exception ex) {
			throw new StepFailedException(name, ex);
		}
	}

}

package dev.exactlyonce.store;

import java.time.Instant;

/**
 * One entry of a task's {@link StepJournal}.
 *
 * @param name the step name, unique within the task
 * @param state the state
 * @param attempt the attempt of the key (see {@link Claim#attempt()}) that wrote this entry
 * @param result the action's result as JSON, for {@link StepState#DONE} only, else {@code null}
 * @param startedAt when the entry's attempt started the step
 * @param doneAt when the step became DONE or FAILED, else {@code null}
 */
public record StepRecord(String name, StepState state, int attempt, String result, Instant startedAt,
		Instant doneAt) {

	/**
	 * A step about to run its action.
	 * @param name the step name
	 * @param attempt the attempt running it
	 * @param now the current time
	 * @return the STARTED entry
	 */
	public static StepRecord started(String name, int attempt, Instant now) {
		return new StepRecord(name, StepState.STARTED, attempt, null, now, null);
	}

	/**
	 * A step whose result is known, without a STARTED entry of this attempt before it (a probe
	 * found the side effect of an earlier attempt).
	 * @param name the step name
	 * @param attempt the attempt journaling it
	 * @param result the result as JSON
	 * @param now the current time
	 * @return the DONE entry
	 */
	public static StepRecord found(String name, int attempt, String result, Instant now) {
		return new StepRecord(name, StepState.DONE, attempt, result, now, now);
	}

	/**
	 * This step, done.
	 * @param json the action's result as JSON
	 * @param now the current time
	 * @return the DONE entry
	 */
	public StepRecord done(String json, Instant now) {
		return new StepRecord(this.name, StepState.DONE, this.attempt, json, this.startedAt, now);
	}

	/**
	 * This step, failed.
	 * @param now the current time
	 * @return the FAILED entry
	 */
	public StepRecord failed(Instant now) {
		return new StepRecord(this.name, StepState.FAILED, this.attempt, null, this.startedAt, now);
	}

}

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
 * @param origin the identity the step's side effects are made under: the fencing token of the claim
 * that first started the step in this run of the task, kept by every later attempt that runs it again
 * (so a follow-up it publishes keeps its message id across crashes), new after a resubmit empties the
 * journal. Fencing tokens never repeat, so neither does an origin. {@code null} in entries written
 * by snapshots that did not keep it
 */
public record StepRecord(String name, StepState state, int attempt, String result, Instant startedAt,
		Instant doneAt, String origin) {

	/**
	 * A step about to run its action.
	 * @param name the step name
	 * @param attempt the attempt running it
	 * @param origin the identity its side effects are made under (see {@link #origin()})
	 * @param now the current time
	 * @return the STARTED entry
	 */
	public static StepRecord started(String name, int attempt, String origin, Instant now) {
		return new StepRecord(name, StepState.STARTED, attempt, null, now, null, origin);
	}

	/**
	 * A step whose result is known, without a STARTED entry of this attempt before it (a probe
	 * found the side effect of an earlier attempt).
	 * @param name the step name
	 * @param attempt the attempt journaling it
	 * @param result the result as JSON
	 * @param origin the identity the earlier attempt made the side effect under
	 * @param now the current time
	 * @return the DONE entry
	 */
	public static StepRecord found(String name, int attempt, String result, String origin, Instant now) {
		return new StepRecord(name, StepState.DONE, attempt, result, now, now, origin);
	}

	/**
	 * This step, done.
	 * @param json the action's result as JSON
	 * @param now the current time
	 * @return the DONE entry
	 */
	public StepRecord done(String json, Instant now) {
		return new StepRecord(this.name, StepState.DONE, this.attempt, json, this.startedAt, now, this.origin);
	}

	/**
	 * This step, failed.
	 * @param now the current time
	 * @return the FAILED entry
	 */
	public StepRecord failed(Instant now) {
		return new StepRecord(this.name, StepState.FAILED, this.attempt, null, this.startedAt, now, this.origin);
	}

}

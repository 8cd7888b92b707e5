package dev.exactlyonce.waits.spi;

import java.time.Instant;

/**
 * What {@link WaitSession#awaitDecisions} found for one of the decisions it awaited.
 *
 * @param state whether it was decided, only noticed, or timed out
 * @param json the decision's (or the notice's) payload as JSON, {@code null} when it timed out
 * @param until the wait's deadline, on the server's clock
 */
public record AwaitedDecision(State state, String json, Instant until) {

	/** What was found. */
	public enum State {

		/** Decided: final for this run. */
		DECIDED,

		/** Not decided, but a notice was stored (e.g. a child was dead-lettered): a decision may follow. */
		NOTICED,

		/** The wait's deadline passed first: final for this run. */
		TIMED_OUT

	}

}

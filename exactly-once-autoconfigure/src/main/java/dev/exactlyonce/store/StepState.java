package dev.exactlyonce.store;

/**
 * The state of one step in a task's {@link StepJournal}.
 */
public enum StepState {

	/** Journaled before the step's action ran; its side effect may or may not have happened. */
	STARTED,

	/** The action returned and its result is journaled; later attempts replay the result. */
	DONE,

	/** The action threw; a later attempt runs it again. */
	FAILED

}

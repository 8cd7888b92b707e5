package dev.exactlyonce.steps.spi;

import dev.exactlyonce.store.StepJournal;

/**
 * Durable steps as the pipeline uses them (implemented by {@code dev.exactlyonce.steps}): opens the
 * steps of each claimed delivery.
 */
public interface TaskSteps {

	/**
	 * Opens the steps of a delivery that holds its claim, replaying what earlier attempts journaled.
	 * @param task the claimed delivery, as its steps see it
	 * @param earlierAttempts the journal the claim carried over from earlier attempts
	 * @return its steps
	 */
	StepSession open(SteppingTask task, StepJournal earlierAttempts);

}

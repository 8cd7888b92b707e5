package dev.exactlyonce.steps.spi;

import java.util.concurrent.ScheduledExecutorService;

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

	/**
	 * Lets the steps run their periodic work (journaling the DONE entries held for the next write too
	 * long) on the listeners' timer; before this, held entries wait for the next write.
	 * @param timer the timer, shut down with the listeners
	 */
	void useTimer(ScheduledExecutorService timer);

}

package dev.exactlyonce.limits.spi;

import java.time.Duration;
import java.util.Set;

import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * Concurrency and rate limits as the pipeline uses them (implemented by {@code dev.exactlyonce.limits}):
 * the limits a claimed delivery takes and gives back.
 */
public interface TaskLimits {

	/**
	 * Opens the limits of a claimed delivery.
	 * @param task the task, as the delivery shows it
	 * @param lease the consumer's lease: how long a slot is held after its holder stopped renewing
	 * its claim
	 * @return its limits, to close when the delivery's handler has returned or thrown
	 */
	LimitSession open(WaitingTask task, Duration lease);

	/**
	 * Whether a limit is declared.
	 * @param name the limit's name
	 * @return {@code true} when {@code exactlyonce.limits.<name>} is declared
	 */
	boolean declares(String name);

	/**
	 * The declared limits' names, for messages naming what could have been meant.
	 * @return the names, in declaration order
	 */
	Set<String> declared();

}

package dev.exactlyonce.waits.spi;

/**
 * Durable waits as the pipeline uses them (implemented by {@code dev.exactlyonce.waits}): the waits
 * of each claimed delivery, and the suspension of a task whose handler stopped at one.
 */
public interface TaskWaits {

	/**
	 * Opens the waits of a claimed delivery.
	 * @param task the task, as the delivery shows it
	 * @return its waits
	 */
	WaitSession open(WaitingTask task);

	/**
	 * Suspends a task whose handler stopped at a wait: stores what will resume it, then its
	 * {@code WAITING} record; on return its message may be acknowledged.
	 * @param task the task
	 * @param suspension where it stopped
	 * @throws RuntimeException when the suspension could not be stored: the attempt fails and is
	 * retried like any failed attempt (it reaches the wait again)
	 */
	void suspend(WaitingTask task, WaitSuspension suspension);

}

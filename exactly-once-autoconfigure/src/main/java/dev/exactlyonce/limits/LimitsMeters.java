package dev.exactlyonce.limits;

import java.time.Duration;

/**
 * Told when a task starts under a limit (the actuator layer records a timer per limit).
 */
public interface LimitsMeters {

	/** Records nothing. */
	LimitsMeters NONE = (limit, waited) -> {
	};

	/**
	 * A task took a slot or token of a limit.
	 * @param limit the limit's name
	 * @param waited how long it waited in the queue (zero when it did not)
	 */
	void started(String limit, Duration waited);

}

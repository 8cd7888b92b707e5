package dev.exactlyonce.waits;

/**
 * Told when a suspended task resumes, for metrics; implemented by the Actuator layer.
 */
public interface WaitsMeters {

	/** Counts nothing. */
	WaitsMeters NONE = (consumer) -> {
	};

	/**
	 * A suspended task of a consumer was reopened because its wait ended (a signal, a timeout or
	 * the end of a sleep); counted once per resumption, by the instance that reopened it.
	 * @param consumer the consumer
	 */
	void resumed(String consumer);

}

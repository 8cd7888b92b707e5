package dev.exactlyonce.waits;

/**
 * Extension point called synchronously when a decision's delivery reaches a {@link WaitPoint}:
 * declare beans of this type for fault injection or audit hooks. Implementations must be fast. An
 * exception is treated like a crash of the sender at that point: it reaches the sender as a failed
 * delivery, what was stored stays stored, and the task resumes at the timer's next look or when
 * the decision is sent again with its id.
 */
public interface WaitObserver {

	/** Observes nothing. */
	WaitObserver NONE = (point, storeKey, name) -> {
	};

	/**
	 * Called when a delivery reaches a point.
	 * @param point the point reached
	 * @param storeKey the task's namespaced key ({@code <namespace>:<key>})
	 * @param name the wait's (or decision's) name
	 */
	void onPoint(WaitPoint point, String storeKey, String name);

}

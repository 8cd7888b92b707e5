package dev.exactlyonce.waits;

/**
 * The named points, in order, of a decision's delivery to a waiting task (a signal, or a child
 * task's result) at which {@link WaitObserver}s are called: between storing the decision and
 * publishing the task's copy, where a sender that dies leaves the task to the timer's next look
 * ({@code exactlyonce.waits.recheck-interval}) or to the decision sent again.
 */
public enum WaitPoint {

	/** The decision was stored by this sender's compare-and-set; the task is not reopened yet. */
	DECISION_STORED,

	/**
	 * The waiting task was reopened for the decision (its {@code RESUME} audit entry is written); its
	 * copy is not published yet.
	 */
	RESUME_RECORDED

}

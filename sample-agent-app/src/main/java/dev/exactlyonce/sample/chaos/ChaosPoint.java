package dev.exactlyonce.sample.chaos;

import dev.exactlyonce.listener.PipelinePoint;

/**
 * Where the chaos observer halts the process. Most points are {@link PipelinePoint}s; two are
 * approximations of moments the pipeline does not report, and one is in the durable waits.
 */
public enum ChaosPoint {

	/** A message was received; nothing else happened yet (before the claim). */
	RECEIVED(PipelinePoint.RECEIVED),

	/** The claim was acquired; the handler did not start. */
	CLAIMED(PipelinePoint.CLAIMED),

	/** The handler is about to be invoked. */
	INVOKING(PipelinePoint.INVOKING),

	/**
	 * Half-way through the marketing agent's simulated model call, before its side effect: marked at
	 * {@link PipelinePoint#INVOKING}, halted by the agent itself at the half-way mark.
	 */
	MID_HANDLER(PipelinePoint.INVOKING),

	/**
	 * Inside the durable step {@code sample.chaos.step}: its action returned (its side effect is done),
	 * its {@code DONE} record is not journaled.
	 */
	STEP_PERFORMED(PipelinePoint.STEP_PERFORMED),

	/**
	 * Between steps: the durable step {@code sample.chaos.step} is journaled {@code DONE} (or was
	 * replayed), the next step has not started. Not a pipeline point: decided in
	 * {@link dev.exactlyonce.listener.PipelineObserver#onStep}.
	 */
	STEP_DONE(null),

	/** The handler returned (side effect done); the completion record is not written. */
	HANDLED(PipelinePoint.HANDLED),

	/** The completion record is durable; the ack was not sent. */
	COMPLETED(PipelinePoint.COMPLETED),

	/**
	 * While the ack is on its way: at {@link PipelinePoint#COMPLETED} a separate thread is started
	 * that halts the process after a random delay within {@code sample.chaos.ack-race-window}, racing
	 * the pipeline's synchronous ack. The halt lands before the ack is sent, between sending and the
	 * server's confirmation, or just after it.
	 */
	DURING_ACK(PipelinePoint.COMPLETED),

	/** The server confirmed the ack. */
	ACKED(PipelinePoint.ACKED),

	/**
	 * The handler stopped at a durable wait (the marketing agent's approval) and the task is suspended:
	 * its wait's ticket and {@code WAITING} record are written, the ack was not sent.
	 */
	SUSPENDED(PipelinePoint.SUSPENDED),

	/**
	 * A child task's handler returned (a marketing post of a campaign) and its result is stored as its
	 * parent's decision; the parent is not resumed yet, the completion record not written.
	 */
	CHILD_RESULT_STORED(PipelinePoint.CHILD_RESULT_STORED),

	/**
	 * In the instance that took a signal (the approval), after the signal was stored as its wait's
	 * decision and before the task's copy is published: at
	 * {@link dev.exactlyonce.waits.WaitPoint#DECISION_STORED} (the task not reopened yet) or
	 * {@link dev.exactlyonce.waits.WaitPoint#RESUME_RECORDED} (reopened, its copy not published),
	 * which of the two chosen at random each time. Not a pipeline point: decided in
	 * {@link dev.exactlyonce.waits.WaitObserver#onPoint}.
	 */
	SIGNAL_TAKEN(null);

	private final PipelinePoint trigger;

	ChaosPoint(PipelinePoint trigger) {
		this.trigger = trigger;
	}

	/**
	 * The pipeline point at which this chaos point is decided.
	 * @return the pipeline point, {@code null} for {@link #STEP_DONE} and {@link #SIGNAL_TAKEN}
	 */
	public PipelinePoint trigger() {
		return this.trigger;
	}

}

package dev.exactlyonce.listener;

import java.time.Duration;

/**
 * Extension point called synchronously by the pipeline at each {@link PipelinePoint} and once per
 * settled delivery. Declare beans of this type for audit hooks, custom metrics or fault
 * injection. Implementations must be fast and must not throw; an exception from an observer is
 * treated like a crash of the pipeline at that point.
 */
public interface PipelineObserver {

	/**
	 * Called when a delivery reaches a pipeline point.
	 * @param point the point reached
	 * @param context the delivery
	 */
	default void onPoint(PipelinePoint point, ExactlyOnceContext context) {
	}

	/**
	 * Called once when a delivery is settled.
	 * @param outcome how it was settled
	 * @param context the delivery
	 */
	default void onOutcome(DeliveryOutcome outcome, ExactlyOnceContext context) {
	}

	/**
	 * Called once when a delivery was left unsettled because an observer threw (the pipeline halted,
	 * as a crash would): it gets no outcome, and the server redelivers the message. An exception
	 * from this method is ignored.
	 * @param context the delivery
	 */
	default void onHalted(ExactlyOnceContext context) {
	}

	/**
	 * Called after each working ack (in-progress signal plus lease renewal) of a running handler.
	 * @param context the delivery
	 * @param leaseRenewed whether the store renewed the lease
	 */
	default void onWorkingAck(ExactlyOnceContext context, boolean leaseRenewed) {
	}

	/**
	 * Called right after {@link PipelinePoint#STEP_PERFORMED} with the name of the durable step
	 * whose action returned (its side effect is done, its result not journaled yet). An exception
	 * is treated like a crash of the pipeline at that point.
	 * @param context the delivery
	 * @param step the step's name
	 */
	default void onStepPerformed(ExactlyOnceContext context, String step) {
	}

	/**
	 * Called once for each durable step a handler ran, when the step returned its result.
	 * @param context the delivery
	 * @param step the step's name
	 * @param outcome what the step did
	 */
	default void onStep(ExactlyOnceContext context, String step, StepOutcome outcome) {
	}

	/**
	 * Called with the duration of a timed step.
	 * @param timing the step
	 * @param context the delivery
	 * @param elapsed how long it took
	 */
	default void onTiming(PipelineTiming timing, ExactlyOnceContext context, Duration elapsed) {
	}

}

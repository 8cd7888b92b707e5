package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.List;

/**
 * Calls every {@link PipelineObserver} in order; a failing observer halts the delivery.
 */
final class PipelineObservers {

	private final List<PipelineObserver> observers;

	PipelineObservers(List<PipelineObserver> observers) {
		this.observers = List.copyOf(observers);
	}

	void reached(PipelinePoint point, ExactlyOnceContext context) {
		for (PipelineObserver observer : this.observers) {
			try {
				observer.onPoint(point, context);
			}
			catch (RuntimeException ex) {
				throw new PipelineHaltedException(point, ex);
			}
		}
	}

	/** Reports {@link PipelinePoint#STEP_PERFORMED} of the named step; a failing observer halts the delivery. */
	void stepPerformed(ExactlyOnceContext context, String step) {
		reached(PipelinePoint.STEP_PERFORMED, context);
		for (PipelineObserver observer : this.observers) {
			try {
				observer.onStepPerformed(context, step);
			}
			catch (RuntimeException ex) {
				throw new PipelineHaltedException(PipelinePoint.STEP_PERFORMED, ex);
			}
		}
	}

	void workingAck(ExactlyOnceContext context, boolean leaseRenewed) {
		this.observers.forEach((observer) -> observer.onWorkingAck(context, leaseRenewed));
	}

	void step(ExactlyOnceContext context, String step, StepOutcome outcome) {
		this.observers.forEach((observer) -> observer.onStep(context, step, outcome));
	}

	void timed(PipelineTiming timing, ExactlyOnceContext context, Duration elapsed) {
		this.observers.forEach((observer) -> observer.onTiming(timing, context, elapsed));
	}

	/** Reports a delivery the pipeline left unsettled; what an observer throws here is ignored. */
	void halted(ExactlyOnceContext context) {
		for (PipelineObserver observer : this.observers) {
			try {
				observer.onHalted(context);
			}
			catch (RuntimeException ex) {
				// the delivery is already left to its redelivery: nothing more can go wrong with it
			}
		}
	}

	void settled(DeliveryOutcome outcome, ExactlyOnceContext context) {
		for (PipelineObserver observer : this.observers) {
			observer.onOutcome(outcome, context);
		}
	}

}

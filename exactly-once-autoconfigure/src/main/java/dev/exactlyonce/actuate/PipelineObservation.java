package dev.exactlyonce.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.core.Ordered;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.listener.StepOutcome;

/**
 * Runs the handling of each delivery inside a Micrometer {@link Observation}, named
 * {@code exactlyonce.process} unless a {@link PipelineObservationConvention} says otherwise:
 * opened when the message is received, closed when it is settled, on the worker thread. A tracer
 * reads the parent trace context from the message headers (for example {@code traceparent}). A
 * delivery whose pipeline halted is closed when the same worker receives its next message.
 */
public class PipelineObservation implements PipelineObserver, Ordered {

	/** The observation name of the default convention. */
	public static final String NAME = "exactlyonce.process";

	/** The name of the event marking a durable step on the observation. */
	public static final String STEP_EVENT = "exactlyonce.step";

	private static final PipelineObservationConvention DEFAULT_CONVENTION = new DefaultPipelineObservationConvention();

	private final ObservationRegistry registry;

	private final PipelineObservationConvention convention;

	private final ThreadLocal<Observation.Scope> current = new ThreadLocal<>();

	/**
	 * Creates the observer.
	 * @param registry the observation registry
	 * @param convention the convention naming the observation and its key values, or {@code null} for
	 * {@link DefaultPipelineObservationConvention}
	 */
	public PipelineObservation(ObservationRegistry registry, PipelineObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public void onPoint(PipelinePoint point, ExactlyOnceContext context) {
		if (point != PipelinePoint.RECEIVED) {
			return;
		}
		close(null);
		Observation observation = Observation
			.createNotStarted(this.convention, DEFAULT_CONVENTION, () -> new PipelineObservationContext(context),
					this.registry)
			.start();
		this.current.set(observation.openScope());
	}

	/** First, so that the observation is open before any other observer runs. */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	/** Marks each durable step on the delivery's observation, as an event named after the step. */
	@Override
	public void onStep(ExactlyOnceContext context, String step, StepOutcome outcome) {
		Observation.Scope scope = this.current.get();
		if (scope != null) {
			scope.getCurrentObservation()
				.event(Observation.Event.of(STEP_EVENT, "step " + step + " " + outcome.tagValue()));
		}
	}

	@Override
	public void onOutcome(DeliveryOutcome outcome, ExactlyOnceContext context) {
		close(outcome);
	}

	private void close(DeliveryOutcome outcome) {
		Observation.Scope scope = this.current.get();
		if (scope == null) {
			return;
		}
		this.current.remove();
		Observation observation = scope.getCurrentObservation();
		scope.close();
		if (observation.getContext() instanceof PipelineObservationContext pipeline) {
			pipeline.setOutcome((outcome != null) ? outcome.tagValue() : "halted");
		}
		observation.stop();
	}

}

package dev.exactlyonce.actuate;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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
 * started when the message is received, stopped when it is settled, on whichever thread settles it
 * (the worker, a pipelined listener's completion thread, a stopping container). Its scope is open
 * on the worker's thread from receipt until the handler returned, so a tracer gives the handler's
 * own spans the delivery as parent; it reads the parent trace context from the message headers
 * (for example {@code traceparent}). A delivery whose pipeline halted is stopped as {@code halted}.
 */
public class PipelineObservation implements PipelineObserver, Ordered {

	/** The observation name of the default convention. */
	public static final String NAME = "exactlyonce.process";

	/** The name of the event marking a durable step on the observation. */
	public static final String STEP_EVENT = "exactlyonce.step";

	private static final PipelineObservationConvention DEFAULT_CONVENTION = new DefaultPipelineObservationConvention();

	private final ObservationRegistry registry;

	private final PipelineObservationConvention convention;

	/** The observation of each delivery between receipt and settlement (deliveries are equal only to themselves). */
	private final Map<ExactlyOnceContext, Observation> open = new ConcurrentHashMap<>();

	/** The scope open on this worker thread, and whose delivery it is. */
	private final ThreadLocal<Opened> onThisThread = new ThreadLocal<>();

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
		if (point == PipelinePoint.RECEIVED) {
			leaveScope();
			Observation observation = Observation
				.createNotStarted(this.convention, DEFAULT_CONVENTION, () -> new PipelineObservationContext(context),
						this.registry)
				.start();
			this.open.put(context, observation);
			this.onThisThread.set(new Opened(context, observation.openScope()));
		}
		else if (point == PipelinePoint.HANDLED) {
			leaveScope();
		}
	}

	/** First, so that the observation is open before any other observer runs. */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	/** Marks each durable step on the delivery's observation, as an event named after the step. */
	@Override
	public void onStep(ExactlyOnceContext context, String step, StepOutcome outcome) {
		Observation observation = this.open.get(context);
		if (observation != null) {
			observation.event(Observation.Event.of(STEP_EVENT, "step " + step + " " + outcome.tagValue()));
		}
	}

	@Override
	public void onOutcome(DeliveryOutcome outcome, ExactlyOnceContext context) {
		stop(context, outcome.tagValue());
	}

	@Override
	public void onHalted(ExactlyOnceContext context) {
		stop(context, "halted");
	}

	private void stop(ExactlyOnceContext context, String outcome) {
		Opened here = this.onThisThread.get();
		if (here != null && here.context() == context) {
			leaveScope();
		}
		Observation observation = this.open.remove(context);
		if (observation != null) {
			stop(observation, outcome);
		}
	}

	/** Closes the scope open on this thread, if any (a worker's scope is left at the latest here). */
	private void leaveScope() {
		Opened opened = this.onThisThread.get();
		if (opened != null) {
			this.onThisThread.remove();
			opened.scope().close();
		}
	}

	private static void stop(Observation observation, String outcome) {
		if (observation.getContext() instanceof PipelineObservationContext pipeline) {
			pipeline.setOutcome(outcome);
		}
		observation.stop();
	}

	/** A delivery's observation and its scope, open on the worker thread that received it. */
	private record Opened(ExactlyOnceContext context, Observation.Scope scope) {
	}

}

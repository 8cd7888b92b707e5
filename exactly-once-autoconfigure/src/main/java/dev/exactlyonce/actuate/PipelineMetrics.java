package dev.exactlyonce.actuate;

import java.time.Duration;
import java.util.Collection;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.listener.PipelineTiming;
import dev.exactlyonce.listener.StepOutcome;

/**
 * Records the pipeline's meters: deliveries by outcome, durable steps by outcome, handler duration,
 * ack latency, working acks, claims lost and abandoned claims taken over. Counters of every outcome
 * are registered at start-up, so a dashboard shows zeros rather than missing series.
 */
public class PipelineMetrics implements PipelineObserver {

	private final MeterRegistry registry;

	/**
	 * Creates the metrics and registers a zero counter per consumer and outcome.
	 * @param registry the registry
	 * @param consumers the declared consumers
	 */
	public PipelineMetrics(MeterRegistry registry, Collection<ConsumerSettings> consumers) {
		this.registry = registry;
		for (ConsumerSettings consumer : consumers) {
			for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
				messages(consumer.stream(), consumer.consumer(), outcome);
			}
			claimsLost(consumer.stream(), consumer.consumer());
			for (StepOutcome outcome : StepOutcome.values()) {
				steps(consumer.stream(), consumer.consumer(), outcome);
			}
		}
	}

	@Override
	public void onPoint(PipelinePoint point, ExactlyOnceContext context) {
		if (point != PipelinePoint.CLAIMED) {
			return;
		}
		context.previousAttempt().filter((previous) -> previous.abandoned()).ifPresent((previous) -> Counter
			.builder(ExactlyOnceMeters.CLAIMS_ABANDONED)
			.description("Abandoned claims (the previous attempt died mid-work) taken over")
			.tags("stream", context.stream(), "consumer", context.consumer())
			.register(this.registry)
			.increment());
	}

	@Override
	public void onOutcome(DeliveryOutcome outcome, ExactlyOnceContext context) {
		messages(context.stream(), context.consumer(), outcome).increment();
		if (outcome == DeliveryOutcome.CLAIM_LOST) {
			claimsLost(context.stream(), context.consumer()).increment();
		}
	}

	@Override
	public void onWorkingAck(ExactlyOnceContext context, boolean leaseRenewed) {
		Counter.builder(ExactlyOnceMeters.WORKING_ACKS)
			.description("Working acks (in-progress signal plus lease renewal) sent for running handlers")
			.tags("stream", context.stream(), "consumer", context.consumer(), "lease",
					leaseRenewed ? "renewed" : "not_renewed")
			.register(this.registry)
			.increment();
	}

	@Override
	public void onStep(ExactlyOnceContext context, String step, StepOutcome outcome) {
		steps(context.stream(), context.consumer(), outcome).increment();
	}

	@Override
	public void onTiming(PipelineTiming timing, ExactlyOnceContext context, Duration elapsed) {
		String name = (timing == PipelineTiming.HANDLER) ? ExactlyOnceMeters.HANDLER_DURATION
				: ExactlyOnceMeters.ACK_LATENCY;
		String description = (timing == PipelineTiming.HANDLER) ? "Run time of the listener method"
				: "Round trip of a synchronous ack";
		Timer.builder(name)
			.description(description)
			.tags("stream", context.stream(), "consumer", context.consumer())
			.register(this.registry)
			.record(elapsed);
	}

	private Counter messages(String stream, String consumer, DeliveryOutcome outcome) {
		return Counter.builder(ExactlyOnceMeters.MESSAGES)
			.description("Deliveries settled by the exactly-once pipeline, by outcome")
			.tags("stream", stream, "consumer", consumer, "outcome", outcome.tagValue())
			.register(this.registry);
	}

	private Counter steps(String stream, String consumer, StepOutcome outcome) {
		return Counter.builder(ExactlyOnceMeters.STEPS)
			.description("Durable steps run by handlers, by outcome (executed, replayed from the journal, or found "
					+ "by a probe after an unfinished run)")
			.tags("stream", stream, "consumer", consumer, "outcome", outcome.tagValue())
			.register(this.registry);
	}

	private Counter claimsLost(String stream, String consumer) {
		return Counter.builder(ExactlyOnceMeters.CLAIMS_LOST)
			.description("Claims taken over by another worker while their handler ran (completion refused)")
			.tags("stream", stream, "consumer", consumer)
			.register(this.registry);
	}

}

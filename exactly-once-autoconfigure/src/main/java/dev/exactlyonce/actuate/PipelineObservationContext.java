package dev.exactlyonce.actuate;

import io.micrometer.observation.transport.ReceiverContext;

import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * What the {@code exactlyonce.process} observation knows about the handling of one delivery: a
 * receiver context whose carrier is the delivery (a tracer reads the parent trace context from its
 * headers), and how the delivery was settled once it was.
 */
public class PipelineObservationContext extends ReceiverContext<ExactlyOnceContext> {

	private volatile String outcome;

	/**
	 * Creates the context of one delivery.
	 * @param delivery the delivery
	 */
	public PipelineObservationContext(ExactlyOnceContext delivery) {
		super((carrier, key) -> carrier.headers().getFirst(key));
		setCarrier(delivery);
		setRemoteServiceName("nats");
	}

	/**
	 * How the delivery was settled: a {@link dev.exactlyonce.listener.DeliveryOutcome} tag value, or
	 * {@code halted} when its pipeline stopped before settling it.
	 * @return the outcome, or {@code null} while the delivery is being handled
	 */
	public String getOutcome() {
		return this.outcome;
	}

	void setOutcome(String outcome) {
		this.outcome = outcome;
	}

}

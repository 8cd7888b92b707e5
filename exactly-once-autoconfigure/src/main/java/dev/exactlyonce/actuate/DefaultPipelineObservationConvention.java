package dev.exactlyonce.actuate;

import io.micrometer.common.KeyValues;

import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The starter's {@link PipelineObservationConvention}: the observation {@code exactlyonce.process},
 * contextual name {@code <consumer> process}, low-cardinality key values {@code stream},
 * {@code consumer} and, once settled, {@code outcome}; high-cardinality
 * {@code messaging.message.sequence} and {@code messaging.delivery.count}.
 */
public class DefaultPipelineObservationConvention implements PipelineObservationConvention {

	@Override
	public String getName() {
		return PipelineObservation.NAME;
	}

	@Override
	public String getContextualName(PipelineObservationContext context) {
		return context.getCarrier().consumer() + " process";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(PipelineObservationContext context) {
		ExactlyOnceContext delivery = context.getCarrier();
		KeyValues keyValues = KeyValues.of("stream", delivery.stream(), "consumer", delivery.consumer());
		return (context.getOutcome() != null) ? keyValues.and("outcome", context.getOutcome()) : keyValues;
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(PipelineObservationContext context) {
		ExactlyOnceContext delivery = context.getCarrier();
		return KeyValues.of("messaging.message.sequence", Long.toString(delivery.streamSequence()),
				"messaging.delivery.count", Long.toString(delivery.deliveryCount()));
	}

}

package dev.exactlyonce.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names the {@code exactlyonce.process} observation and its key values. Declare a bean of this
 * type to replace {@link DefaultPipelineObservationConvention}, or extend that one to add to it.
 */
public interface PipelineObservationConvention extends ObservationConvention<PipelineObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof PipelineObservationContext;
	}

}

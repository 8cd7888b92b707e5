package dev.exactlyonce.publish;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names the {@code exactlyonce.publish} observation and its key values. Declare a bean of this
 * type to replace {@link DefaultPublishObservationConvention}, or extend that one to add to it.
 */
public interface PublishObservationConvention extends ObservationConvention<PublishObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof PublishObservationContext;
	}

}

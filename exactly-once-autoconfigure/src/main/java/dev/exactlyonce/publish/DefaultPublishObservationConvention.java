package dev.exactlyonce.publish;

import io.micrometer.common.KeyValues;

/**
 * The starter's {@link PublishObservationConvention}: the observation {@code exactlyonce.publish},
 * contextual name {@code <subject> publish}, and the subject as the high-cardinality key value
 * {@code messaging.destination.name}.
 */
public class DefaultPublishObservationConvention implements PublishObservationConvention {

	/** The observation name. */
	public static final String NAME = "exactlyonce.publish";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(PublishObservationContext context) {
		return context.getSubject() + " publish";
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(PublishObservationContext context) {
		return KeyValues.of("messaging.destination.name", context.getSubject());
	}

}

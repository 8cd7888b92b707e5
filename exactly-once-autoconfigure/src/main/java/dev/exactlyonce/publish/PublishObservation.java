package dev.exactlyonce.publish;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.nats.client.impl.Headers;

/**
 * Runs a publish inside a Micrometer sender {@link Observation} ({@code exactlyonce.publish} by
 * default) whose carrier is the message's headers, so a tracer injects the trace context (e.g.
 * {@code traceparent}) that the listener side reads back.
 */
final class PublishObservation {

	private static final PublishObservationConvention DEFAULT_CONVENTION = new DefaultPublishObservationConvention();

	private PublishObservation() {
	}

	static <T> T observe(ObservationRegistry registry, PublishObservationConvention convention, String subject,
			String messageId, Headers headers, Supplier<T> publish) {
		return Observation
			.createNotStarted(convention, DEFAULT_CONVENTION,
					() -> new PublishObservationContext(subject, messageId, headers), registry)
			.observe(publish);
	}

}

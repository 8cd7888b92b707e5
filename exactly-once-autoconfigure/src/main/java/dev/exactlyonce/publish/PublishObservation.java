package dev.exactlyonce.publish;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.SenderContext;
import io.nats.client.impl.Headers;

/**
 * Runs a publish inside a Micrometer sender {@link Observation} named {@code exactlyonce.publish}
 * whose carrier is the message's headers, so a tracer injects the trace context (e.g.
 * {@code traceparent}) that the listener side reads back.
 */
final class PublishObservation {

	static final String NAME = "exactlyonce.publish";

	private PublishObservation() {
	}

	static <T> T observe(ObservationRegistry registry, String subject, Headers headers, Supplier<T> publish) {
		SenderContext<Headers> sender = new SenderContext<>((carrier, key, value) -> carrier.put(key, value));
		sender.setCarrier(headers);
		sender.setRemoteServiceName("nats");
		return Observation.createNotStarted(NAME, () -> sender, registry)
			.contextualName(subject + " publish")
			.highCardinalityKeyValue("messaging.destination.name", subject)
			.observe(publish);
	}

}

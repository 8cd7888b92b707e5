package dev.exactlyonce.actuate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import dev.exactlyonce.publish.PublishObserver;
import dev.exactlyonce.publish.PublishResult;

/**
 * Counts confirmed publishes of {@link dev.exactlyonce.publish.ExactlyOncePublisher}: stored, or
 * recognised by the stream as a duplicate of a message id inside its duplicate window.
 */
public class PublishMetrics implements PublishObserver {

	private final MeterRegistry registry;

	/**
	 * Creates the metrics.
	 * @param registry the registry
	 */
	public PublishMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onPublished(String subject, PublishResult result) {
		Counter.builder(ExactlyOnceMeters.PUBLISH)
			.description("Publishes confirmed by the server: stored, or caught by the stream's deduplication")
			.tags("stream", result.stream(), "outcome", result.duplicate() ? "duplicate" : "stored")
			.register(this.registry)
			.increment();
	}

}

package dev.exactlyonce.actuate;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.waits.WaitsMeters;

/**
 * Counts resumed tasks ({@code exactlyonce.waits.resumed}): suspended tasks reopened because their
 * wait ended (a signal, a timeout or the end of a sleep), by the instance that reopened them. Their
 * suspensions are the {@code suspended} outcome of {@code exactlyonce.messages}. A zero counter per
 * consumer is registered at start-up.
 */
public class WaitsMetrics implements WaitsMeters {

	private final Map<String, Counter> resumed = new LinkedHashMap<>();

	/**
	 * Creates the metrics and registers a zero counter per consumer.
	 * @param registry the registry
	 * @param consumers the declared consumers
	 */
	public WaitsMetrics(MeterRegistry registry, Collection<ConsumerSettings> consumers) {
		for (ConsumerSettings consumer : consumers) {
			this.resumed.put(consumer.consumer(), Counter.builder(ExactlyOnceMeters.WAITS_RESUMED)
				.description("Suspended tasks reopened because their durable wait ended (a signal, a timeout or the end "
						+ "of a sleep)")
				.tags("stream", consumer.stream(), "consumer", consumer.consumer())
				.register(registry));
		}
	}

	@Override
	public void resumed(String consumer) {
		Counter counter = this.resumed.get(consumer);
		if (counter != null) {
			counter.increment();
		}
	}

}

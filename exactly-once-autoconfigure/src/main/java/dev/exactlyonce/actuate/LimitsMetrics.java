package dev.exactlyonce.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.exactlyonce.limits.LimitsMeters;

/**
 * Times how long tasks waited for a slot or token of a limit ({@code exactlyonce.limits.wait}, tagged
 * {@code limit}): one sample per start under the limit, zero for a task that did not wait, so its
 * count is the starts, by the instance that started them.
 */
public class LimitsMetrics implements LimitsMeters {

	private final MeterRegistry registry;

	private final Map<String, Timer> waits = new ConcurrentHashMap<>();

	/**
	 * Creates the metrics.
	 * @param registry the registry
	 */
	public LimitsMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void started(String limit, Duration waited) {
		this.waits.computeIfAbsent(limit, (name) -> Timer.builder(ExactlyOnceMeters.LIMITS_WAIT)
			.description("How long tasks waited in the queue of a limit before they started")
			.tag("limit", name)
			.register(this.registry)).record(waited);
	}

}

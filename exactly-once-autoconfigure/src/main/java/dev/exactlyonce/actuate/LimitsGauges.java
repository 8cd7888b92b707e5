package dev.exactlyonce.actuate;

import java.util.List;
import java.util.function.ToIntFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.exactlyonce.limits.LimitUsage;
import dev.exactlyonce.limits.NatsTaskLimits;

/**
 * The gauges of each declared limit, tagged {@code limit}, fleet-wide: the tasks holding a slot
 * ({@code exactlyonce.limits.in.use}) and the tasks queued ({@code exactlyonce.limits.waiting}),
 * summed over the limit's keys. They show the usage the {@code exactlyonceLimits} health contributor
 * reads, read at most once per 5 seconds on a thread of its own (a scrape never waits for NATS):
 * {@code NaN} before the first read and when the last one failed.
 */
public class LimitsGauges implements MeterBinder {

	private final NatsTaskLimits limits;

	/**
	 * Creates the gauges.
	 * @param limits the limits
	 */
	public LimitsGauges(NatsTaskLimits limits) {
		this.limits = limits;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (String limit : this.limits.declared()) {
			Gauge.builder(ExactlyOnceMeters.LIMITS_IN_USE, this, (self) -> self.value(limit, LimitUsage::holders))
				.description("Tasks holding a slot of a limit, all keys and instances")
				.tag("limit", limit)
				.register(registry);
			Gauge.builder(ExactlyOnceMeters.LIMITS_WAITING, this, (self) -> self.value(limit, LimitUsage::waiting))
				.description("Tasks queued at a limit, all keys and instances")
				.tag("limit", limit)
				.register(registry);
		}
	}

	private double value(String limit, ToIntFunction<LimitUsage> count) {
		List<LimitUsage> usage = this.limits.lastUsage().orElse(List.of());
		return usage.stream()
			.filter((used) -> used.limit().name().equals(limit))
			.findFirst()
			.map((used) -> (double) count.applyAsInt(used))
			.orElse(Double.NaN);
	}

}

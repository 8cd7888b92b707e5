package dev.exactlyonce.actuate;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.exactlyonce.limits.LimitUsage;
import dev.exactlyonce.limits.NatsTaskLimits;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * The use of each declared limit ({@code exactlyonceLimits}), a {@link LimitDescriptor} per limit: its
 * keys, the tasks holding a slot, started in the rate window and waiting, summed over its keys; its
 * longest wait; and its busiest keys (the longest queues), each with its holders and queue. Read from
 * the limits' bucket at most once per 5 seconds. Always {@code UP} when the bucket answers (a full
 * limit is work waiting its turn, not a fault); {@code UNKNOWN} when it does not.
 */
public class LimitsHealthIndicator implements HealthIndicator {

	private final NatsTaskLimits limits;

	/**
	 * Creates the indicator.
	 * @param limits the limits
	 */
	public LimitsHealthIndicator(NatsTaskLimits limits) {
		this.limits = limits;
	}

	@Override
	public Health health() {
		try {
			Health.Builder builder = Health.up();
			for (LimitUsage usage : this.limits.usage()) {
				builder.withDetail(usage.limit().name(), LimitDescriptor.of(usage));
			}
			return builder.build();
		}
		catch (StoreUnavailableException ex) {
			return Health.unknown().withDetail("error", ex.getMessage()).build();
		}
	}

}

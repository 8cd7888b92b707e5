package dev.exactlyonce.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.exactlyonce.limits.LimitUsage;
import dev.exactlyonce.limits.NatsTaskLimits;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * The use of each declared limit ({@code exactlyonceLimits}): its keys, the tasks holding a slot and the
 * tasks waiting, summed over its keys. Always {@code UP} when the limits' bucket answers (a full limit
 * is work waiting its turn, not a fault); {@code UNKNOWN} when it does not.
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
				Map<String, Object> detail = new LinkedHashMap<>();
				detail.put("concurrency", usage.limit().concurrency());
				detail.put("rate", usage.limit().rate());
				if (usage.limit().rate() > 0) {
					detail.put("per", usage.limit().per().toString());
				}
				detail.put("keys", usage.keys());
				detail.put("holders", usage.holders());
				detail.put("waiting", usage.waiting());
				builder.withDetail(usage.limit().name(), detail);
			}
			return builder.build();
		}
		catch (StoreUnavailableException ex) {
			return Health.unknown().withDetail("error", ex.getMessage()).build();
		}
	}

}

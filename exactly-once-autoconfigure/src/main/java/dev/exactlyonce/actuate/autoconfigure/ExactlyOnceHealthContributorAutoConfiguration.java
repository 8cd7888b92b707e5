package dev.exactlyonce.actuate.autoconfigure;

import io.nats.client.Connection;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.actuate.ExactlyOnceHealthIndicator;
import dev.exactlyonce.actuate.LimitsHealthIndicator;
import dev.exactlyonce.autoconfigure.ExactlyOnceAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceLimitsAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties;
import dev.exactlyonce.limits.NatsTaskLimits;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Auto-configures the {@code exactlyonce} health contributor
 * ({@code management.health.exactlyonce.enabled}).
 */
@AutoConfiguration(after = { ExactlyOnceAutoConfiguration.class, ExactlyOnceLimitsAutoConfiguration.class })
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class, Connection.class })
@ConditionalOnBean({ Connection.class, IdempotencyStore.class })
@ConditionalOnEnabledHealthIndicator("exactlyonce")
public final class ExactlyOnceHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "exactlyonceHealthIndicator", "exactlyonceHealthContributor" })
	ExactlyOnceHealthIndicator exactlyonceHealthIndicator(Connection connection, ExactlyOnceProperties properties,
			IdempotencyStore store) {
		return new ExactlyOnceHealthIndicator(connection, properties.toJetStreamDeclarations(),
				properties.getStore().toBucketSpec(properties.getWaits().keptLonger()), properties.getNats().getRequestTimeout(), store);
	}

	@Bean
	@ConditionalOnMissingBean(name = "exactlyonceLimitsHealthIndicator")
	@ConditionalOnBean(NatsTaskLimits.class)
	LimitsHealthIndicator exactlyonceLimitsHealthIndicator(NatsTaskLimits limits) {
		return new LimitsHealthIndicator(limits);
	}

}

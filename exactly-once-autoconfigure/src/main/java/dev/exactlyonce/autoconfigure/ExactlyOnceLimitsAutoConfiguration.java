package dev.exactlyonce.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import io.nats.client.Connection;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

import dev.exactlyonce.limits.DurableLimits;
import dev.exactlyonce.limits.LimitDefinition;
import dev.exactlyonce.limits.LimitsMeters;
import dev.exactlyonce.limits.NatsTaskLimits;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.provision.ProvisioningMode;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.waits.DurableWaits;

/**
 * Auto-configures the limits declared under {@code exactlyonce.limits}: their KV bucket, created only
 * when a limit is declared, and the pipeline's use of them. Needs durable waits (a task over a limit
 * waits like a durable sleep).
 */
@AutoConfiguration(after = ExactlyOnceWaitsAutoConfiguration.class)
@ConditionalOnBean({ ExactlyOnceListenerRegistry.class, DurableWaits.class, IdempotencyStore.class })
@Conditional(ExactlyOnceLimitsAutoConfiguration.LimitsDeclared.class)
public final class ExactlyOnceLimitsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	NatsTaskLimits exactlyOnceLimits(Connection connection, IdempotencyStore store, DurableWaits waits,
			ExactlyOnceProperties properties, ExactlyOnceListenerRegistry registry, ObjectProvider<LimitsMeters> meters) {
		Map<String, LimitDefinition> limits = new LinkedHashMap<>();
		properties.getLimits().forEach((name, limit) -> limits.put(name, limit.toDefinition(name)));
		NatsTaskLimits taskLimits = StartupRetry.call("Provisioning the limits' bucket", connection,
				() -> DurableLimits.open(connection, store, waits, limits,
						properties.getStore().getCompletedTtl().plus(properties.getWaits().keptLonger()),
						properties.getNats().getRequestTimeout(),
						properties.getProvisioning().getMode() == ProvisioningMode.CREATE_OR_UPDATE,
						meters.getIfAvailable(() -> LimitsMeters.NONE)));
		registry.useLimits(taskLimits);
		return taskLimits;
	}

	/** Matches when at least one limit is declared under {@code exactlyonce.limits}. */
	static final class LimitsDeclared extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			boolean declared = Binder.get(context.getEnvironment())
				.bind("exactlyonce.limits", Bindable.mapOf(String.class, LimitProperties.class))
				.map((limits) -> !limits.isEmpty())
				.orElse(false);
			return declared ? ConditionOutcome.match("exactlyonce.limits declares a limit")
					: ConditionOutcome.noMatch("no limit is declared under exactlyonce.limits");
		}

	}

}

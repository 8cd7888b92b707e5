package dev.exactlyonce.actuate.autoconfigure;

import java.time.Clock;
import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.Connection;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.exactlyonce.actuate.ConsumerMetrics;
import dev.exactlyonce.actuate.ConsumerStates;
import dev.exactlyonce.actuate.LimitsGauges;
import dev.exactlyonce.actuate.LimitsMetrics;
import dev.exactlyonce.actuate.PipelineMetrics;
import dev.exactlyonce.actuate.PublishMetrics;
import dev.exactlyonce.actuate.ReconciliationMetrics;
import dev.exactlyonce.actuate.StoreMetricsPostProcessor;
import dev.exactlyonce.actuate.UndecodableMessageMetrics;
import dev.exactlyonce.actuate.WaitingTasksMetrics;
import dev.exactlyonce.actuate.WaitsMetrics;
import dev.exactlyonce.audit.Reconciliations;
import dev.exactlyonce.autoconfigure.ExactlyOnceAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceConsumers;
import dev.exactlyonce.autoconfigure.ExactlyOnceLimitsAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceOperationsAutoConfiguration;
import dev.exactlyonce.limits.LimitsMeters;
import dev.exactlyonce.limits.NatsTaskLimits;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.waits.WaitsMeters;

/**
 * Auto-configures the {@code exactlyonce.*} meters when the application has a
 * {@link MeterRegistry}: pipeline outcomes and timings, store latency, publishes, consumer gauges,
 * undecodable messages, the last reconciliation, durable waits (resumed tasks, waiting tasks) and limits
 * (wait time, tasks in use and waiting).
 */
@AutoConfiguration(after = { ExactlyOnceAutoConfiguration.class, ExactlyOnceReconciliationAutoConfiguration.class,
		ExactlyOnceOperationsAutoConfiguration.class, ExactlyOnceLimitsAutoConfiguration.class },
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass({ MeterRegistry.class, Connection.class })
@ConditionalOnBean({ MeterRegistry.class, ExactlyOnceConsumers.class })
public final class ExactlyOnceMetricsAutoConfiguration {

	/** How long a consumer state read serves the gauges. */
	private static final Duration CONSUMER_STATE_MAX_AGE = Duration.ofSeconds(10);

	/** How long a count of waiting tasks (a scan of the whole store) serves the gauges. */
	private static final Duration WAITING_COUNT_MAX_AGE = Duration.ofMinutes(1);

	@Bean
	static StoreMetricsPostProcessor exactlyOnceStoreMetricsPostProcessor(BeanFactory beanFactory) {
		return new StoreMetricsPostProcessor(beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	PipelineMetrics exactlyOncePipelineMetrics(MeterRegistry registry, ExactlyOnceConsumers consumers) {
		return new PipelineMetrics(registry, consumers.settings().values());
	}

	@Bean
	@ConditionalOnMissingBean
	PublishMetrics exactlyOncePublishMetrics(MeterRegistry registry) {
		return new PublishMetrics(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	UndecodableMessageMetrics exactlyOnceUndecodableMessageMetrics(MeterRegistry registry) {
		return new UndecodableMessageMetrics(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	ConsumerMetrics exactlyOnceConsumerMetrics(Connection connection, ExactlyOnceConsumers consumers) {
		return new ConsumerMetrics(new ConsumerStates(connection, CONSUMER_STATE_MAX_AGE, Clock.systemUTC()),
				consumers.settings().values());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(Reconciliations.class)
	ReconciliationMetrics exactlyOnceReconciliationMetrics(Reconciliations reconciliations,
			ExactlyOnceConsumers consumers) {
		return new ReconciliationMetrics(reconciliations, consumers.settings().values());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "exactlyonce.waits.enabled", matchIfMissing = true)
	static class WaitsMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean(LimitsMeters.class)
		LimitsMetrics exactlyOnceLimitsMetrics(MeterRegistry registry) {
			return new LimitsMetrics(registry);
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(NatsTaskLimits.class)
		LimitsGauges exactlyOnceLimitsGauges(NatsTaskLimits limits) {
			return new LimitsGauges(limits);
		}

		@Bean
		@ConditionalOnMissingBean(WaitsMeters.class)
		WaitsMetrics exactlyOnceWaitsMetrics(MeterRegistry registry, ExactlyOnceConsumers consumers) {
			return new WaitsMetrics(registry, consumers.settings().values());
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(TaskInspector.class)
		WaitingTasksMetrics exactlyOnceWaitingTasksMetrics(TaskInspector inspector, ExactlyOnceConsumers consumers) {
			return new WaitingTasksMetrics(inspector, consumers.settings().values(), WAITING_COUNT_MAX_AGE,
					Clock.systemUTC());
		}

	}

}

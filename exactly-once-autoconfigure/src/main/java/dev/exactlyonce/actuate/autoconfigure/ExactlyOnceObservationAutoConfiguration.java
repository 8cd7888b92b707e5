package dev.exactlyonce.actuate.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.nats.client.Connection;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.actuate.PipelineObservation;
import dev.exactlyonce.actuate.PipelineObservationConvention;
import dev.exactlyonce.autoconfigure.ExactlyOnceAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceConsumers;

/**
 * Auto-configures the {@code exactlyonce.process} observation around message handling when the
 * application has an {@link ObservationRegistry} (spans with tracing, timers with metrics), named
 * by the application's {@link PipelineObservationConvention} bean if it has one.
 */
@AutoConfiguration(after = ExactlyOnceAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass({ ObservationRegistry.class, Connection.class })
@ConditionalOnBean({ ObservationRegistry.class, ExactlyOnceConsumers.class })
public final class ExactlyOnceObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PipelineObservation exactlyOncePipelineObservation(ObservationRegistry registry,
			ObjectProvider<PipelineObservationConvention> convention) {
		return new PipelineObservation(registry, convention.getIfAvailable());
	}

}

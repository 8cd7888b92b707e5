package dev.exactlyonce.actuate.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.actuate.ExactlyOnceOperationsEndpoint;
import dev.exactlyonce.autoconfigure.ExactlyOnceOperationsAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.MonthlyTally;
import dev.exactlyonce.operations.OperatedConsumers;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskResubmitter;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.waits.ExactlyOnceSignals;

/**
 * Auto-configures the {@code exactlyonceops} actuator endpoint (task inspection, replay, resubmit,
 * discard, signals to waiting tasks when durable waits are on).
 */
@AutoConfiguration(after = ExactlyOnceOperationsAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean({ TaskInspector.class, DeadLetterOperations.class, TaskResubmitter.class, MonthlyTally.class })
@ConditionalOnAvailableEndpoint(ExactlyOnceOperationsEndpoint.class)
public final class ExactlyOnceOperationsEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ExactlyOnceOperationsEndpoint exactlyOnceOperationsEndpoint(OperatedConsumers consumers, TaskInspector inspector,
			DeadLetterOperations deadLetters, TaskResubmitter resubmitter, ObjectProvider<ExactlyOnceSignals> signals,
			MonthlyTally tally, IdempotencyStore store, ExactlyOnceProperties properties) {
		return new ExactlyOnceOperationsEndpoint(consumers, inspector, deadLetters, resubmitter, signals.getIfAvailable(),
				tally, store.name(), properties.getOperations().isShowPayloads());
	}

}

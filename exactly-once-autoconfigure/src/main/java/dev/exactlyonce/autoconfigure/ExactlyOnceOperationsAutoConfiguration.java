package dev.exactlyonce.autoconfigure;

import java.time.Clock;
import java.util.function.UnaryOperator;

import io.nats.client.Connection;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.audit.DeadLetters;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.KeyReopener;
import dev.exactlyonce.operations.MonthlyTally;
import dev.exactlyonce.operations.OperatedConsumers;
import dev.exactlyonce.operations.Republisher;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskResubmitter;
import dev.exactlyonce.operations.TallyBucket;
import dev.exactlyonce.provision.ProvisioningMode;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.waits.SignalPayloads;

/**
 * Auto-configures the operator tools: task inspection, dead-letter replay and discard, controlled
 * resubmits (also through {@link ExactlyOncePublisher#resubmit}), and the fleet-wide monthly counts.
 */
@AutoConfiguration(after = ExactlyOnceAutoConfiguration.class)
@ConditionalOnBean({ ExactlyOnceListenerRegistry.class, ExactlyOnceConsumers.class, IdempotencyStore.class })
public final class ExactlyOnceOperationsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	OperatedConsumers exactlyOnceOperatedConsumers(ExactlyOnceConsumers consumers,
			ExactlyOnceListenerRegistry registry) {
		return new OperatedConsumers(consumers.settings(), registry::namespace);
	}

	@Bean
	@ConditionalOnMissingBean
	KeyReopener exactlyOnceKeyReopener(IdempotencyStore store, OperatedConsumers consumers,
			ObjectProvider<ExactlyOncePublisher> publisher) {
		KeyReopener reopener = new KeyReopener(store, consumers, Clock.systemUTC());
		publisher.ifAvailable((available) -> available.setKeyReopener(reopener));
		return reopener;
	}

	@Bean(initMethod = "start", destroyMethod = "stop")
	@ConditionalOnMissingBean
	MonthlyTally exactlyOnceMonthlyTally(Connection connection, ExactlyOnceProperties properties) {
		JetStreamRequirement.check(connection);
		ExactlyOnceProperties.Operations operations = properties.getOperations();
		TallyBucket bucket = new TallyBucket(connection, operations.getTallyBucket(),
				properties.getProvisioning().getMode() == ProvisioningMode.CREATE_OR_UPDATE);
		return new MonthlyTally(StartupRetry.call("Opening the monthly tally bucket '" + bucket.name()
				+ "' (exactlyonce.operations.tally-bucket)", connection, bucket::open), Clock.systemUTC(),
				operations.getTallyInterval());
	}

	@Bean
	@ConditionalOnMissingBean
	TaskInspector exactlyOnceTaskInspector(IdempotencyStore store, OperatedConsumers consumers,
			ExactlyOnceProperties properties) {
		return new TaskInspector(store, consumers, Clock.systemUTC(),
				properties.getOperations().isShowPayloads() ? UnaryOperator.identity() : new SignalPayloads());
	}

	@Bean
	@ConditionalOnMissingBean
	DeadLetterOperations exactlyOnceDeadLetterOperations(Connection connection, ExactlyOnceProperties properties,
			ObjectProvider<DeadLetters> deadLetters, OperatedConsumers consumers, KeyReopener reopener) {
		return new DeadLetterOperations(
				deadLetters.getIfAvailable(() -> new DeadLetters(connection, properties.getDeadLetter().getStream())),
				consumers, reopener, new Republisher(connection), properties.getOperations().isShowPayloads());
	}

	@Bean
	@ConditionalOnMissingBean
	TaskResubmitter exactlyOnceTaskResubmitter(Connection connection, IdempotencyStore store,
			OperatedConsumers consumers, KeyReopener reopener) {
		return new TaskResubmitter(connection, store, consumers, reopener, new Republisher(connection));
	}

}

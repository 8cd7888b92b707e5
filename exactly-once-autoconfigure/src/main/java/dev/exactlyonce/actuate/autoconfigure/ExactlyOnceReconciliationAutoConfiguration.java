package dev.exactlyonce.actuate.autoconfigure;

import java.time.Clock;
import java.time.ZoneId;

import io.nats.client.Connection;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.audit.DeadLetters;
import dev.exactlyonce.audit.MessageKeys;
import dev.exactlyonce.audit.PipelineTally;
import dev.exactlyonce.audit.Reconciler;
import dev.exactlyonce.audit.ReconciliationScheduler;
import dev.exactlyonce.audit.Reconciliations;
import dev.exactlyonce.autoconfigure.ExactlyOnceAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceConsumers;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties;
import dev.exactlyonce.autoconfigure.ReconciliationProperties;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.nats.RawStreamReader;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Auto-configures the reconciliation audit ({@code exactlyonce.reconciliation.*}): the
 * reconciler, the report history, the duplicate tally and, when a cron expression is set, the
 * schedule.
 */
@AutoConfiguration(after = ExactlyOnceAutoConfiguration.class)
@ConditionalOnClass(Connection.class)
@ConditionalOnBean({ ExactlyOnceConsumers.class, IdempotencyStore.class })
@ConditionalOnBooleanProperty(name = "exactlyonce.reconciliation.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ReconciliationProperties.class)
public final class ExactlyOnceReconciliationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PipelineTally exactlyOncePipelineTally() {
		return new PipelineTally(Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	DeadLetters exactlyOnceDeadLetters(Connection connection, ExactlyOnceProperties properties) {
		return new DeadLetters(connection, properties.getDeadLetter().getStream());
	}

	@Bean
	@ConditionalOnMissingBean
	Reconciler exactlyOnceReconciler(Connection connection, ExactlyOnceConsumers consumers, IdempotencyStore store,
			DeadLetters deadLetters, PipelineTally tally, ReconciliationProperties properties,
			ExactlyOnceProperties exactlyOnceProperties, ObjectProvider<ExactlyOnceListenerRegistry> listeners) {
		ExactlyOnceListenerRegistry registry = listeners.getIfAvailable();
		MessageKeys keys = (registry != null) ? registry::storeKey : MessageKeys.NONE;
		RawStreamReader reader = new RawStreamReader(connection, exactlyOnceProperties.getNats().getRequestTimeout());
		return new Reconciler(connection, reader, consumers.settings(), store, deadLetters, tally,
				properties.getMaxSequences(), keys, Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	Reconciliations exactlyOnceReconciliations(Reconciler reconciler, ReconciliationProperties properties) {
		return new Reconciliations(reconciler, properties.getWindow(), properties.getHistory());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty("exactlyonce.reconciliation.cron")
	ReconciliationScheduler exactlyOnceReconciliationScheduler(Reconciliations reconciliations,
			ReconciliationProperties properties) {
		return new ReconciliationScheduler(reconciliations, properties.getCron(), ZoneId.of(properties.getZone()));
	}

}

package dev.exactlyonce.actuate.autoconfigure;

import java.time.Clock;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

import io.nats.client.Connection;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.actuate.ExactlyOnceEndpoint;
import dev.exactlyonce.audit.DeadLetters;
import dev.exactlyonce.audit.Reconciliations;
import dev.exactlyonce.autoconfigure.ExactlyOnceAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceConsumers;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties;
import dev.exactlyonce.autoconfigure.ReconciliationProperties;
import dev.exactlyonce.limits.NatsTaskLimits;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Auto-configures the {@code exactlyonce} actuator endpoint.
 */
@AutoConfiguration(after = { ExactlyOnceAutoConfiguration.class, ExactlyOnceReconciliationAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class, Connection.class })
@ConditionalOnBean({ ExactlyOnceListenerRegistry.class, ExactlyOnceConsumers.class, IdempotencyStore.class })
@ConditionalOnAvailableEndpoint(ExactlyOnceEndpoint.class)
public final class ExactlyOnceEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ExactlyOnceEndpoint exactlyOnceEndpoint(Connection connection, ExactlyOnceConsumers consumers,
			ExactlyOnceProperties properties, ExactlyOnceListenerRegistry registry, IdempotencyStore store,
			ObjectProvider<DeadLetters> deadLetters, ObjectProvider<Reconciliations> reconciliations,
			ObjectProvider<ReconciliationProperties> reconciliationProperties, ObjectProvider<NatsTaskLimits> limits) {
		Map<String, String> filterSubjects = new LinkedHashMap<>();
		properties.getConsumers().forEach((name, spec) -> {
			if (spec.getFilterSubject() != null) {
				filterSubjects.put(name, spec.getFilterSubject());
			}
		});
		String zone = reconciliationProperties.getIfAvailable(ReconciliationProperties::new).getZone();
		return new ExactlyOnceEndpoint(connection, consumers.settings(), filterSubjects, registry, store,
				deadLetters.getIfAvailable(() -> new DeadLetters(connection, properties.getDeadLetter().getStream())),
				reconciliations.getIfAvailable(), ZoneId.of(zone), Clock.systemUTC(), limits.getIfAvailable());
	}

}

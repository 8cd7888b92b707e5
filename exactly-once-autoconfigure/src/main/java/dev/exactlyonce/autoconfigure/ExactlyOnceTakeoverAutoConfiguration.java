package dev.exactlyonce.autoconfigure;

import io.nats.client.Connection;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.provision.ProvisioningMode;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.takeover.InstancePresence;
import dev.exactlyonce.takeover.RunningTasks;

/**
 * Lets a restarted instance take over at once the tasks its crashed predecessor (same
 * {@code exactlyonce.instance-id}) left, when {@code exactlyonce.takeover.enabled=true}.
 */
@AutoConfiguration(after = ExactlyOnceAutoConfiguration.class)
@ConditionalOnBean({ ExactlyOnceListenerRegistry.class, IdempotencyStore.class, Connection.class })
@ConditionalOnBooleanProperty(name = "exactlyonce.takeover.enabled")
public final class ExactlyOnceTakeoverAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RunningTasks exactlyOnceRunningTasks(ExactlyOnceProperties properties,
			ObjectProvider<ExactlyOnceListenerRegistry> registry) {
		return new RunningTasks(ExactlyOnceAutoConfiguration.instanceId(properties),
				(consumer) -> registry.getObject().namespace(consumer).orElse(consumer));
	}

	@Bean
	@ConditionalOnMissingBean
	InstancePresence exactlyOnceInstancePresence(Connection connection, ExactlyOnceProperties properties,
			IdempotencyStore store, RunningTasks tasks) {
		JetStreamRequirement.check(connection);
		return StartupRetry.call("Opening the instances bucket", connection,
				() -> InstancePresence.open(connection, ExactlyOnceAutoConfiguration.instanceId(properties),
						properties.getTakeover().getBucket(), properties.getNats().getRequestTimeout(),
						properties.getProvisioning().getMode() == ProvisioningMode.CREATE_OR_UPDATE, store, tasks));
	}

}

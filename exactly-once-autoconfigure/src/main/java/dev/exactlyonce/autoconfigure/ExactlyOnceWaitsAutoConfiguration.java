package dev.exactlyonce.autoconfigure;

import io.nats.client.Connection;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.children.ExactlyOnceChildren;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.OperatedConsumers;
import dev.exactlyonce.provision.ProvisioningMode;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.waits.DurableWaits;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.WaitObserver;
import dev.exactlyonce.waits.WaitTimer;
import dev.exactlyonce.waits.WaitsMeters;

/**
 * Auto-configures durable waits: {@code ExactlyOnceContext.sleep} and {@code awaitSignal} in every
 * listener, the {@link ExactlyOnceSignals} bean that sends signals, and the {@link WaitTimer} that
 * resumes tasks at their deadlines, and child tasks ({@code startChild}, {@code awaitChild},
 * {@code awaitAll}) built on them. Off with {@code exactlyonce.waits.enabled=false}.
 */
@AutoConfiguration(after = ExactlyOnceOperationsAutoConfiguration.class)
@ConditionalOnBean({ ExactlyOnceListenerRegistry.class, OperatedConsumers.class, IdempotencyStore.class })
@ConditionalOnBooleanProperty(name = "exactlyonce.waits.enabled", matchIfMissing = true)
public final class ExactlyOnceWaitsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	DurableWaits exactlyOnceDurableWaits(Connection connection, IdempotencyStore store, OperatedConsumers consumers,
			ObjectProvider<JsonMapper> jsonMapper, ExactlyOnceProperties properties, ExactlyOnceListenerRegistry registry,
			ObjectProvider<WaitsMeters> meters, ObjectProvider<WaitObserver> observers) {
		JetStreamRequirement.check(connection);
		WaitsProperties waits = properties.getWaits();
		DurableWaits durableWaits = StartupRetry.call("Provisioning the durable waits' bucket, stream and consumer",
				connection, () -> DurableWaits.open(connection, store, consumers,
						ExactlyOnceAutoConfiguration.jsonMapper(jsonMapper),
						waits.toSettings(properties.getNats().getRequestTimeout(),
								properties.getProvisioning().getMode() == ProvisioningMode.CREATE_OR_UPDATE),
						properties.getStore().getCompletedTtl().plus(waits.keptLonger()),
						properties.getSteps().getMaxResultSize().toBytes(), meters.getIfAvailable(() -> WaitsMeters.NONE),
						observers.orderedStream().toList()));
		registry.useWaits(durableWaits.taskWaits());
		return durableWaits;
	}

	/**
	 * Child tasks ({@code ExactlyOnceContext.startChild}, {@code awaitChild}, {@code awaitAll}), over
	 * the durable waits; they publish with the {@link ExactlyOncePublisher}.
	 */
	@Bean
	@ConditionalOnMissingBean
	ExactlyOnceChildren exactlyOnceChildren(DurableWaits waits, ObjectProvider<ExactlyOncePublisher> publisher,
			OperatedConsumers consumers, ObjectProvider<JsonMapper> jsonMapper, ExactlyOnceProperties properties,
			ExactlyOnceListenerRegistry registry, ObjectProvider<DeadLetterOperations> deadLetters) {
		ExactlyOnceChildren children = new ExactlyOnceChildren(publisher.getIfAvailable(), consumers, waits.decisions(),
				ExactlyOnceAutoConfiguration.jsonMapper(jsonMapper), properties.getSteps().getMaxResultSize().toBytes());
		registry.useChildren(children, children.failures());
		deadLetters.ifAvailable((operations) -> operations.useChildFailures(children.failures()));
		return children;
	}

	@Bean
	@ConditionalOnMissingBean
	ExactlyOnceSignals exactlyOnceSignals(DurableWaits waits) {
		return waits.signals();
	}

	@Bean
	@ConditionalOnMissingBean
	WaitTimer exactlyOnceWaitTimer(DurableWaits waits) {
		return waits.timer();
	}

}

package dev.exactlyonce.autoconfigure;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;

import io.micrometer.observation.ObservationRegistry;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.deadletter.DeadLetterPublisher;
import dev.exactlyonce.deadletter.DeadLetterSizeLimit;
import dev.exactlyonce.listener.CompletionParking;
import dev.exactlyonce.listener.ExactlyOnceListenerAnnotationBeanPostProcessor;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.listener.HandlerTransactions;
import dev.exactlyonce.listener.ListenerThreads;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.nats.NatsKvCompletionParking;
import dev.exactlyonce.provision.ProvisioningMode;
import dev.exactlyonce.publish.DuplicateWindows;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishObservationConvention;
import dev.exactlyonce.publish.PublishObserver;
import dev.exactlyonce.publish.PublishRetryPolicy;
import dev.exactlyonce.steps.DurableSteps;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Auto-configures the exactly-once pipeline: provisioning of declared streams and consumers,
 * {@link ExactlyOncePublisher}, dead-letter publishing, and the listener infrastructure behind
 * {@link dev.exactlyonce.annotation.ExactlyOnceListener}.
 */
@AutoConfiguration(after = { ExactlyOnceNatsAutoConfiguration.class, ExactlyOnceStoreAutoConfiguration.class },
		afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass(Connection.class)
@ConditionalOnBean(Connection.class)
public final class ExactlyOnceAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ExactlyOnceConsumers exactlyOnceConsumers(Connection connection, ExactlyOnceProperties properties) {
		JetStreamRequirement.check(connection);
		return StartupRetry.call("Provisioning the declared streams and consumers", connection,
				() -> ExactlyOnceConsumers.provision(management(connection), properties));
	}

	@Bean
	@ConditionalOnMissingBean
	ExactlyOncePublisher exactlyOncePublisher(Connection connection, ExactlyOnceProperties properties,
			ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<PublishObserver> observers,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<PublishObservationConvention> observationConvention) {
		ExactlyOnceProperties.Publisher publisher = properties.getPublisher();
		PublishRetryPolicy retryPolicy = new PublishRetryPolicy(publisher.getMaxAttempts(),
				publisher.getInitialBackoff(), properties.getNats().getRequestTimeout());
		PublisherRetryBudgetCheck.warnIfOutsideDuplicateWindows(retryPolicy, properties);
		ExactlyOncePublisher exactlyOncePublisher = new ExactlyOncePublisher(connection,
				jetStream(connection, properties), jsonMapper(jsonMapper), retryPolicy,
				new DuplicateWindows(management(connection), PublisherRetryBudgetCheck.shortestWindow(properties)),
				observers.orderedStream().toList());
		observationRegistry.ifAvailable(exactlyOncePublisher::setObservationRegistry);
		observationConvention.ifAvailable(exactlyOncePublisher::setObservationConvention);
		return exactlyOncePublisher;
	}

	@Bean
	@ConditionalOnMissingBean
	DeadLetterPublisher exactlyOnceDeadLetterPublisher(Connection connection, ExactlyOnceProperties properties) {
		return new DeadLetterPublisher(jetStream(connection, properties), new DeadLetterSizeLimit(connection),
				Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	ExactlyOnceListenerRegistry exactlyOnceListenerRegistry(Connection connection, IdempotencyStore store,
			ExactlyOnceConsumers consumers, ObjectProvider<JsonMapper> jsonMapper, DeadLetterPublisher deadLetters,
			ObjectProvider<ExactlyOncePublisher> publisher, ObjectProvider<PipelineObserver> observers,
			ExactlyOnceProperties properties, ObjectProvider<HandlerTransactions> transactions,
			Environment environment) {
		JsonMapper mapper = jsonMapper(jsonMapper);
		ExactlyOnceListenerRegistry registry = new ExactlyOnceListenerRegistry(connection, store, consumers.settings(),
				mapper, deadLetters, steps(mapper, publisher.getIfAvailable(), properties),
				observers.orderedStream().toList(), properties.toListenerSettings(listenerThreads(environment)),
				instanceId(properties), Clock.systemUTC(), completionParking(connection, properties));
		transactions.ifAvailable(registry::useTransactions);
		return registry;
	}

	private static DurableSteps steps(JsonMapper jsonMapper, ExactlyOncePublisher publisher,
			ExactlyOnceProperties properties) {
		Duration doneDelay = properties.getSteps().getDoneDelay();
		if (doneDelay.isNegative()) {
			throw new ExactlyOnceConfigurationException("exactlyonce.steps.done-delay is " + doneDelay
					+ ": how long a step's DONE entry may wait for the next write cannot be negative",
					"Set exactlyonce.steps.done-delay to 0s (every DONE entry journaled at once) or more, or remove it "
							+ "for the default 10ms.");
		}
		return new DurableSteps(jsonMapper, publisher, properties.getSteps().getMaxResultSize().toBytes(),
				Clock.systemUTC(), doneDelay);
	}

	/** Virtual threads as Boot's own listener containers decide: on Java 21 and later, when enabled. */
	private static ListenerThreads listenerThreads(Environment environment) {
		return Threading.VIRTUAL.isActive(environment) ? ListenerThreads.VIRTUAL : ListenerThreads.PLATFORM;
	}

	private static CompletionParking completionParking(Connection connection, ExactlyOnceProperties properties) {
		ExactlyOnceProperties.Listener listener = properties.getListener();
		if (!listener.isCompletionParking()) {
			return CompletionParking.NONE;
		}
		JetStreamRequirement.check(connection);
		return StartupRetry.call("Opening the completion parking bucket", connection,
				() -> NatsKvCompletionParking.open(connection, listener.getParkingBucket(),
						properties.getStore().getCompletedTtl(), properties.getNats().getRequestTimeout(),
						properties.getProvisioning().getMode() == ProvisioningMode.CREATE_OR_UPDATE));
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ExactlyOnceListenerAnnotationBeanPostProcessor exactlyOnceListenerAnnotationBeanPostProcessor() {
		return new ExactlyOnceListenerAnnotationBeanPostProcessor();
	}

	private static JetStream jetStream(Connection connection, ExactlyOnceProperties properties) {
		try {
			return connection.jetStream(
					JetStreamOptions.builder().requestTimeout(properties.getNats().getRequestTimeout()).build());
		}
		catch (IOException ex) {
			throw new IllegalStateException("JetStream is not available on this NATS connection", ex);
		}
	}

	private static JetStreamManagement management(Connection connection) {
		try {
			return connection.jetStreamManagement();
		}
		catch (IOException ex) {
			throw new IllegalStateException("JetStream is not enabled on the NATS server (start it with -js)", ex);
		}
	}

	static JsonMapper jsonMapper(ObjectProvider<JsonMapper> jsonMapper) {
		return jsonMapper.getIfAvailable(() -> JsonMapper.builder().build());
	}

	static String instanceId(ExactlyOnceProperties properties) {
		if (properties.getInstanceId() != null && !properties.getInstanceId().isBlank()) {
			return properties.getInstanceId();
		}
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (IOException ex) {
			host = "unknown-host";
		}
		return host + ":" + ManagementFactory.getRuntimeMXBean().getPid();
	}

}

package dev.exactlyonce.actuate;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import dev.exactlyonce.actuate.autoconfigure.ExactlyOnceMetricsAutoConfiguration;
import dev.exactlyonce.actuate.autoconfigure.ExactlyOnceObservationAutoConfiguration;
import dev.exactlyonce.actuate.autoconfigure.ExactlyOnceReconciliationAutoConfiguration;
import dev.exactlyonce.audit.ReconciliationScheduler;
import dev.exactlyonce.audit.Reconciliations;
import dev.exactlyonce.autoconfigure.ExactlyOnceAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceNatsAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceStoreAutoConfiguration;
import dev.exactlyonce.publish.DefaultPublishObservationConvention;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishObservationConvention;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.natskv.NatsKvIdempotencyStore;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.Ledger;
import dev.exactlyonce.testapp.RecordingTaskHandler;
import dev.exactlyonce.testapp.StoppedObservations;
import dev.exactlyonce.testapp.TaskAssignment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every branch of the observability auto-configurations, against a real nats-server.
 */
class ObservabilityAutoConfigurationIntegrationTests {

	private static NatsServerProcess nats;

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ExactlyOnceNatsAutoConfiguration.class,
					ExactlyOnceStoreAutoConfiguration.class, ExactlyOnceAutoConfiguration.class,
					ExactlyOnceReconciliationAutoConfiguration.class, ExactlyOnceMetricsAutoConfiguration.class,
					ExactlyOnceObservationAutoConfiguration.class))
			.withPropertyValues("exactlyonce.nats.servers=" + nats.url(),
					"exactlyonce.streams.AUTOCONF.subjects=autoconf.>", "exactlyonce.consumers.worker.stream=AUTOCONF");
	}

	@BeforeAll
	static void startNats() {
		nats = new NatsServerProcess().start();
	}

	@AfterAll
	static void stopNats() {
		nats.close();
	}

	@Test
	void withoutMeterRegistryNoMetricsAndTheStoreIsNotDecorated() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(PipelineMetrics.class).doesNotHaveBean(PublishMetrics.class);
			assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(NatsKvIdempotencyStore.class);
			assertThat(context).hasSingleBean(Reconciliations.class).doesNotHaveBean(ReconciliationScheduler.class);
		});
	}

	@Test
	void withMeterRegistryEveryMeterBeanAndATimedScanningStore() {
		runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			assertThat(context).hasSingleBean(PipelineMetrics.class)
				.hasSingleBean(PublishMetrics.class)
				.hasSingleBean(ConsumerMetrics.class)
				.hasSingleBean(ReconciliationMetrics.class);
			assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(TimedIdempotencyStore.class)
				.isInstanceOf(RecordScanner.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(ExactlyOnceMeters.MESSAGES).tag("outcome", "processed").counter().count()).isZero();
		});
	}

	@Test
	void reconciliationCanBeDisabledAndIsScheduledOnlyWithACron() {
		runner().withPropertyValues("exactlyonce.reconciliation.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(Reconciliations.class));
		runner().withPropertyValues("exactlyonce.reconciliation.cron=0 0 3 * * *")
			.run((context) -> assertThat(context).hasSingleBean(ReconciliationScheduler.class));
	}

	@Test
	void publishAndHandlingRunInsideObservationsThatCarryTheOutcome() {
		observedRunner().run((context) -> {
			context.getBean(ExactlyOncePublisher.class).publish("autoconf.tasks", TaskAssignment.of("o-1"), "o-1");
			StoppedObservations observations = context.getBean(StoppedObservations.class);
			await().atMost(Duration.ofSeconds(20)).until(() -> observations.hasStopped(PipelineObservation.NAME));
			assertThat(observations.hasStopped("exactlyonce.publish")).isTrue();
			Observation.Context observed = observations.named(PipelineObservation.NAME);
			assertThat(observed.getLowCardinalityKeyValue("consumer").getValue()).isEqualTo("worker");
			assertThat(observed.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("processed");
		});
	}

	@Test
	void theApplicationsConventionsNameBothObservations() {
		observedRunner().withBean(PipelineObservationConvention.class, PipelineObservationTests.TeamConvention::new)
			.withBean(PublishObservationConvention.class, () -> new DefaultPublishObservationConvention() {

				@Override
				public String getName() {
					return "agents.publish";
				}

			})
			.run((context) -> {
				context.getBean(ExactlyOncePublisher.class).publish("autoconf.tasks", TaskAssignment.of("c-1"), "c-1");
				StoppedObservations observations = context.getBean(StoppedObservations.class);
				await().atMost(Duration.ofSeconds(20)).until(() -> observations.hasStopped("agents.task"));
				assertThat(observations.hasStopped("agents.publish")).isTrue();
				assertThat(observations.stopped()).noneMatch((observed) -> observed.getName().startsWith("exactlyonce."));
				Observation.Context observed = observations.named("agents.task");
				assertThat(observed.getLowCardinalityKeyValue("team").getValue()).isEqualTo("agents");
				assertThat(observed.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("processed");
			});
	}

	/** A listener on autoconf.tasks whose observations are kept in a {@link StoppedObservations} bean. */
	private ApplicationContextRunner observedRunner() {
		return runner().withUserConfiguration(ObservedListener.class)
			.withInitializer((context) -> context.getBeanFactory()
				.setConversionService(ApplicationConversionService.getSharedInstance()))
			.withPropertyValues("exactlyonce.consumers.worker.filter-subject=autoconf.tasks");
	}

	@Configuration(proxyBeanMethods = false)
	@Import(RecordingTaskHandler.class)
	static class ObservedListener {

		@Bean
		Ledger ledger() {
			return new Ledger();
		}

		@Bean
		StoppedObservations stoppedObservations() {
			return new StoppedObservations();
		}

		@Bean
		ObservationRegistry observationRegistry(StoppedObservations observations) {
			return observations.registry();
		}

	}

}

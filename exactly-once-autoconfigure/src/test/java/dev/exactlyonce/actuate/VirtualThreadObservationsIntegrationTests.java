package dev.exactlyonce.actuate;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.exactlyonce.actuate.autoconfigure.ExactlyOnceMetricsAutoConfiguration;
import dev.exactlyonce.actuate.autoconfigure.ExactlyOnceObservationAutoConfiguration;
import dev.exactlyonce.actuate.autoconfigure.ExactlyOnceReconciliationAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceNatsAutoConfiguration;
import dev.exactlyonce.autoconfigure.ExactlyOnceStoreAutoConfiguration;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.Ledger;
import dev.exactlyonce.testapp.StoppedObservations;
import dev.exactlyonce.testapp.TaskAssignment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every delivery's {@code exactlyonce.process} observation is stopped once, with its own outcome,
 * whichever thread settles it: a pipelined delivery's on its completion thread (it was stopped as
 * {@code halted} with another's duration, and the last one never), a halted one even when its
 * worker thread never takes another message (a virtual thread per message). Runs with virtual
 * threads on JDK 25 ({@code scripts/test-jdk25.sh}) and with pooled platform threads on Java 17.
 */
class VirtualThreadObservationsIntegrationTests {

	private static NatsServerProcess nats;

	@BeforeAll
	static void startNats() {
		nats = new NatsServerProcess().start();
	}

	@AfterAll
	static void stopNats() {
		nats.close();
	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ExactlyOnceNatsAutoConfiguration.class,
					ExactlyOnceStoreAutoConfiguration.class, ExactlyOnceAutoConfiguration.class,
					ExactlyOnceReconciliationAutoConfiguration.class, ExactlyOnceMetricsAutoConfiguration.class,
					ExactlyOnceObservationAutoConfiguration.class))
			.withUserConfiguration(ObservabilityAutoConfigurationIntegrationTests.ObservedListener.class)
			.withInitializer((context) -> context.getBeanFactory()
				.setConversionService(ApplicationConversionService.getSharedInstance()))
			.withPropertyValues("exactlyonce.nats.servers=" + nats.url(),
					"spring.threads.virtual.enabled=true",
					"exactlyonce.streams.VTOBS.subjects=vtobs.>", "exactlyonce.consumers.worker.stream=VTOBS",
					"exactlyonce.consumers.worker.filter-subject=vtobs.tasks",
					"exactlyonce.consumers.worker.concurrency=1",
					"exactlyonce.consumers.worker.ack-wait=1m");
	}

	/** A halted delivery's observation is stopped as "halted". */
	@Test
	void aHaltedDeliverysObservationIsStoppedAsHalted() {
		runner().withBean(HaltOnce.class, HaltOnce::new).run((context) -> {
			ExactlyOncePublisher publisher = context.getBean(ExactlyOncePublisher.class);
			publisher.publish("vtobs.tasks", TaskAssignment.of("h-1"), "h-1");
			await().atMost(Duration.ofSeconds(20)).until(() -> context.getBean(HaltOnce.class).halted.get());
			publisher.publish("vtobs.tasks", TaskAssignment.of("h-2"), "h-2");
			StoppedObservations observations = context.getBean(StoppedObservations.class);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> context.getBean(Ledger.class).executionsOf("h-2") == 1);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(observations.stopped())
					.as("observations stopped (h-1 halted, h-2 processed)")
					.filteredOn((observed) -> observed.getName().equals(PipelineObservation.NAME))
					.extracting((observed) -> observed.getLowCardinalityKeyValue("outcome").getValue())
					.contains("halted", "processed"));
		});
	}

	/** Pipelined: the outcome is reported on the completion thread, not on the worker that opened the scope. */
	@Test
	void pipelinedDeliveriesObservationsAreStoppedWithTheirOutcome() {
		runner().withPropertyValues("exactlyonce.listener.pipelined=true").run((context) -> {
			ExactlyOncePublisher publisher = context.getBean(ExactlyOncePublisher.class);
			publisher.publish("vtobs.tasks", TaskAssignment.of("p-1"), "p-1");
			publisher.publish("vtobs.tasks", TaskAssignment.of("p-2"), "p-2");
			await().atMost(Duration.ofSeconds(20))
				.until(() -> context.getBean(Ledger.class).executionsOf("p-2") == 1
						&& context.getBean(Ledger.class).executionsOf("p-1") == 1);
			StoppedObservations observations = context.getBean(StoppedObservations.class);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(observations.stopped())
					.filteredOn((observed) -> observed.getName().equals(PipelineObservation.NAME))
					.extracting((observed) -> observed.getLowCardinalityKeyValue("outcome").getValue())
					.as("outcomes of the stopped exactlyonce.process observations")
					.containsExactly("processed", "processed"));
		});
	}

	/** Halts the first delivery at HANDLED (an observer failing), once. */
	static class HaltOnce implements PipelineObserver {

		final AtomicBoolean halted = new AtomicBoolean();

		@Override
		public void onPoint(PipelinePoint point, ExactlyOnceContext context) {
			if (point == PipelinePoint.HANDLED && "h-1".equals(context.key()) && this.halted.compareAndSet(false, true)) {
				throw new IllegalStateException("observer down");
			}
		}

	}

}

package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shutting down with a handler still running: after the grace period it is interrupted, its
 * claim released and its message nak'd, so another instance takes it over at once.
 */
class GracefulShutdownIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.listener.shutdown-timeout", "1s")
			.with("exactlyonce.consumers.worker.ack-wait", "1m")
			.with("exactlyonce.consumers.worker.max-ack-pending", "2");
	}

	@Test
	void inFlightHandlerIsHandedToAnotherInstanceOnShutdown() throws Exception {
		assertHandedOverOnShutdown("throw");
	}

	@Test
	void handlerThatRestoresTheInterruptFlagAndFailsIsReleasedNakedAndRunsOnceElsewhere() throws Exception {
		assertHandedOverOnShutdown("restore-and-fail");
	}

	@Test
	void handlerThatRestoresTheInterruptFlagAndFinishesIsCompletedAndAckedOnce() throws Exception {
		Instance leaving = this.instances.start("leaving", "test.work-duration=30s",
				"test.on-interrupt=restore-and-finish");
		leaving.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-1") == 1);
		Instance staying = this.instances.start("staying", "test.work-duration=0s");

		leaving.context().close();

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(15)).until(() -> probe.drained("TASKS", "worker"));
		}
		assertThat(leaving.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(staying.recorder().outcomes()).isEmpty();
		assertThat(this.instances.ledger().executions()).singleElement()
			.satisfies((execution) -> assertThat(execution.instance()).isEqualTo("leaving"));
		assertThat(staying.bean(IdempotencyStore.class).find("worker:t-1").orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
	}

	private void assertHandedOverOnShutdown(String onInterrupt) throws Exception {
		Instance leaving = this.instances.start("leaving", "test.work-duration=30s", "test.on-interrupt=" + onInterrupt);
		leaving.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-1") == 1);
		Instance staying = this.instances.start("staying", "test.work-duration=0s");

		long closing = System.nanoTime();
		leaving.context().close();
		assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(20));

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(15))
				.until(() -> staying.recorder().outcomes().contains(DeliveryOutcome.PROCESSED) && probe.drained("TASKS", "worker"));
		}
		assertThat(leaving.recorder().outcomes()).containsExactly(DeliveryOutcome.RETRIED);
		assertThat(this.instances.ledger().executions()).singleElement()
			.satisfies((execution) -> assertThat(execution.instance()).isEqualTo("staying"));
		assertThat(this.instances.ledger().executions().get(0).previousAttempt().owner()).isEqualTo("leaving");
		assertThat(this.instances.ledger().executions().get(0).previousAttempt().state()).isEqualTo(RecordState.FAILED);
	}

}

package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shutting down with a handler still running: the whole stop fits the shutdown timeout, the
 * handler's claim is released and its message nak'd, so another instance takes it over at once
 * (not after the ack wait or the lease) and sees a released attempt, never an abandoned one, even
 * with {@code on-abandoned: dead-letter}. Holds for a handler that honours the interrupt and for
 * one that ignores it.
 */
class GracefulShutdownIntegrationTests extends NatsIntegrationTestSupport {

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(3);

	/** Closing the rest of the context (store, connection) after the listeners stopped. */
	private static final Duration CLOSE_MARGIN = Duration.ofMillis(1500);

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.listener.shutdown-timeout", SHUTDOWN_TIMEOUT.toSeconds() + "s")
			.with("exactlyonce.listener.completion-retry-timeout", "2s")
			.with("exactlyonce.consumers.worker.ack-wait", "1m")
			.with("exactlyonce.consumers.worker.on-abandoned", "dead-letter")
			.with("exactlyonce.consumers.worker.max-ack-pending", "2");
	}

	@Test
	void inFlightHandlerIsHandedToAnotherInstanceOnShutdown() throws Exception {
		assertHandedOverWithinShutdownTimeout("test.on-interrupt=throw");
	}

	@Test
	void handlerIgnoringTheInterruptIsReleasedAndNakdByTheContainerWithinShutdownTimeout() throws Exception {
		assertHandedOverWithinShutdownTimeout("test.on-interrupt=ignore");
	}

	@Test
	void handlerThatRestoresTheInterruptFlagAndFailsIsReleasedNakedAndRunsOnceElsewhere() throws Exception {
		assertHandedOverWithinShutdownTimeout("test.on-interrupt=restore-and-fail");
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

	private void assertHandedOverWithinShutdownTimeout(String interrupts) throws Exception {
		Instance leaving = this.instances.start("leaving", "test.work-duration=15s", interrupts);
		leaving.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-1") == 1);
		Instance staying = this.instances.start("staying", "test.work-duration=0s");

		long closing = System.nanoTime();
		leaving.context().close();
		assertThat(Duration.ofNanos(System.nanoTime() - closing)).as("time to close the leaving instance")
			.isLessThan(SHUTDOWN_TIMEOUT.plus(CLOSE_MARGIN));

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> staying.recorder().outcomes().contains(DeliveryOutcome.PROCESSED)
						&& probe.drained("TASKS", "worker"));
			assertThat(probe.stream("DEAD_LETTERS").getStreamState().getMsgCount()).as("dead letters").isZero();
		}
		assertThat(leaving.recorder().outcomes()).containsExactly(DeliveryOutcome.RETRIED);
		assertThat(staying.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(this.instances.ledger().executions()).singleElement().satisfies((execution) -> {
			assertThat(execution.instance()).isEqualTo("staying");
			PreviousAttempt previous = execution.previousAttempt();
			assertThat(previous.owner()).as("instance and stream sequence of the released attempt").isEqualTo("leaving#1");
			assertThat(previous.state()).as("the leaving attempt was released").isEqualTo(RecordState.FAILED);
			assertThat(previous.abandoned()).isFalse();
		});
	}

}

package dev.exactlyonce.it;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code exactlyonce.listener.pipelined}: a worker takes its next message while the last one's
 * completion record is written on a completion thread; a message is still acked only once its
 * record is durable, at most twice concurrency messages are in flight, a crash after the record is
 * a duplicate on redelivery, and a shutdown waits for the records being written.
 */
class PipelinedCompletionIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.listener.pipelined", "true")
			.with("exactlyonce.consumers.worker.concurrency", "1")
			.with("exactlyonce.consumers.worker.ack-wait", "2s")
			.with("exactlyonce.consumers.worker.working-ack-interval", "500ms");
	}

	@Test
	void aWorkerRunsTheNextMessageWhileTheLastRecordIsWrittenAndAcksOnlyAfterTheRecord() throws Exception {
		Instance instance = this.instances.start("a");
		instance.storeFaults().holdCompletions();
		publish(instance, "t-1", "t-2", "t-3");

		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().executionsOf("t-2") == 1);
		assertThat(instance.storeFaults().heldCompletions()).as("t-1's record, held while t-2 ran").isEqualTo(1);
		assertThat(instance.recorder().count(PipelinePoint.ACKED)).as("acks before a record is durable").isZero();
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.consumer("TASKS", "worker").getNumAckPending()).as("in flight (2 x concurrency)")
				.isEqualTo(2);
			assertThat(probe.consumer("TASKS", "worker").getNumPending()).as("t-3, not pulled").isEqualTo(1);
			assertThat(this.instances.ledger().startedOf("t-3")).isZero();

			instance.storeFaults().releaseCompletions();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> instance.recorder().outcomes().size() == 3 && probe.drained("TASKS", "worker"));
			assertThat(probe.consumer("TASKS", "worker").getRedelivered()).isZero();
		}
		assertThat(instance.recorder().outcomes()).containsOnly(DeliveryOutcome.PROCESSED);
		for (String task : List.of("t-1", "t-2", "t-3")) {
			assertThat(this.instances.ledger().executionsOf(task)).as(task).isEqualTo(1);
			assertThat(instance.bean(IdempotencyStore.class).find("worker:" + task).orElseThrow().state())
				.isEqualTo(RecordState.COMPLETED);
		}
	}

	@Test
	void aCrashAfterTheRecordBeforeTheAckIsADuplicateOnRedelivery() throws Exception {
		Instance instance = this.instances.start("a");
		instance.recorder().haltOnceAt(PipelinePoint.COMPLETED);
		publish(instance, "t-1");

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.DUPLICATE)
						&& probe.drained("TASKS", "worker"));
		}
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.DUPLICATE);
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
	}

	@Test
	void aShutdownWaitsForTheRecordBeingWrittenAndAcksIt() throws Exception {
		Instance leaving = this.instances.start("leaving");
		leaving.storeFaults().holdCompletions();
		publish(leaving, "t-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> leaving.storeFaults().heldCompletions() == 1);

		Thread closing = new Thread(leaving.context()::close, "closing-leaving");
		closing.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> !leaving.bean(ExactlyOnceListenerRegistry.class).isRunning());
		leaving.storeFaults().releaseCompletions();
		closing.join(Duration.ofSeconds(30).toMillis());

		assertThat(closing.isAlive()).as("context still closing").isFalse();
		assertThat(leaving.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.drained("TASKS", "worker")).as("acked before the connection closed").isTrue();
			assertThat(probe.consumer("TASKS", "worker").getRedelivered()).isZero();
		}
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
	}

	private static void publish(Instance instance, String... tasks) {
		for (String task : tasks) {
			instance.bean(ExactlyOncePublisher.class)
				.publish("agents.marketing.tasks.blog-post", TaskAssignment.of(task), task);
		}
	}

}

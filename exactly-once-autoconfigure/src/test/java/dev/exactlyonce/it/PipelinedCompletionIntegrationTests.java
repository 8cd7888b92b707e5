package dev.exactlyonce.it;

import java.time.Duration;
import java.util.List;

import io.nats.client.Connection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

		await().atMost(Duration.ofSeconds(10)).until(() -> instance.storeFaults().heldCompletions() == 2);
		assertThat(this.instances.ledger().executionsOf("t-2")).as("t-2 ran while t-1's record was held").isEqualTo(1);
		assertThat(instance.recorder().count(PipelinePoint.ACKED)).as("acks before a record is durable").isZero();
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.consumer("TASKS", "worker").getNumAckPending()).as("in flight (2 x concurrency)")
				.isEqualTo(2);
			assertThat(probe.consumer("TASKS", "worker").getNumPending()).as("t-3, not pulled").isEqualTo(1);
			assertThat(this.instances.ledger().startedOf("t-3")).isZero();

			instance.storeFaults().releaseCompletions();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> instance.recorder().outcomes().size() == 3 && probe.drained("TASKS", "worker"));
			assertNoMessageDeliveredTwice(probe);
		}
		assertThat(instance.recorder().outcomes()).containsOnly(DeliveryOutcome.PROCESSED);
		for (String task : List.of("t-1", "t-2", "t-3")) {
			assertThat(this.instances.ledger().executionsOf(task)).as(task).isEqualTo(1);
			assertThat(instance.bean(IdempotencyStore.class).find("worker:" + task).orElseThrow().state())
				.isEqualTo(RecordState.COMPLETED);
		}
	}

	@Test
	void aRecordNeverWaitsBehindASlowOne() throws Exception {
		Instance instance = this.instances.start("a");
		instance.storeFaults().holdCompletionsOf(":t-1");
		publish(instance, "t-1", "t-2");

		await().atMost(Duration.ofSeconds(10))
			.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED));
		assertThat(instance.storeFaults().heldCompletions()).as("t-1's record, still held").isEqualTo(1);
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		assertThat(store.find("worker:t-2").orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
		assertThat(store.find("worker:t-1").orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);

		instance.storeFaults().releaseCompletions();
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> instance.recorder().outcomes().size() == 2 && probe.drained("TASKS", "worker"));
		}
		assertThat(instance.recorder().outcomes()).containsOnly(DeliveryOutcome.PROCESSED);
		assertThat(this.instances.ledger().executions()).hasSize(2);
	}

	@Test
	void aServerRestartWithRecordsBeingWrittenRunsEachTaskOnce() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.consumers.worker.concurrency=2",
				"exactlyonce.consumers.worker.ack-wait=3s", "exactlyonce.consumers.worker.working-ack-interval=1s",
				"exactlyonce.nats.reconnect-wait=200ms");
		instance.storeFaults().holdCompletions();
		List<String> tasks = List.of("t-1", "t-2", "t-3", "t-4", "t-5", "t-6");
		publish(instance, tasks.toArray(String[]::new));
		await().atMost(Duration.ofSeconds(10)).until(() -> instance.storeFaults().heldCompletions() == 4);

		this.nats.kill();
		await().pollDelay(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(5))
			.until(() -> instance.bean(Connection.class).getStatus() != Connection.Status.CONNECTED);
		instance.storeFaults().releaseCompletions();
		this.nats.start();

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(90)).until(() -> probe.drained("TASKS", "worker"));
		}
		for (String task : tasks) {
			assertThat(this.instances.ledger().executionsOf(task)).as(task).isEqualTo(1);
		}
		assertThat(instance.recorder().outcomes()).doesNotContain(DeliveryOutcome.CLAIM_LOST,
				DeliveryOutcome.COMPLETION_UNRECORDED);
	}

	@ParameterizedTest(name = "pipelined: {0}")
	@ValueSource(booleans = { true, false })
	void aHandlerWhoseResultCannotBeSummarisedIsCompletedOnce(boolean pipelined) throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.listener.pipelined=" + pipelined,
				"test.unprintable-result=true");
		publish(instance, "t-1");

		assertProcessedOnceAndAckedOnce(instance, "t-1");
		assertThat(instance.bean(IdempotencyStore.class).find("worker:t-1").orElseThrow().resultSummary())
			.isEqualTo("(toString() threw java.lang.IllegalStateException)");
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
			assertNoMessageDeliveredTwice(probe);
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

package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
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
 * The incident from the field: the handler finished and its completion record was written, then
 * the process died before its ack reached the server. The redelivery must be acked without
 * running the handler again.
 */
class FieldIncidentIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "2s");
	}

	@Test
	void redeliveryAfterDeathBetweenCompletionAndAckIsAckedWithoutRunningAgain() throws Exception {
		Instance dying = this.instances.start("dying");
		dying.recorder().haltOnceAt(PipelinePoint.COMPLETED);
		dying.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"), "t-1");
		IdempotencyStore store = dying.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> store.find("worker:t-1").map((r) -> r.state() == RecordState.COMPLETED).orElse(false));
		dying.context().close();

		Instance survivor = this.instances.start("survivor");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			// the outcome is reported after the ack reached the server: wait for both
			await().atMost(Duration.ofSeconds(20))
				.until(() -> !survivor.recorder().outcomes().isEmpty() && probe.drained("TASKS", "worker"));
			assertThat(probe.stream("TASKS").getStreamState().getMsgCount()).isZero();
		}
		assertThat(survivor.recorder().outcomes()).containsExactly(DeliveryOutcome.DUPLICATE);
		assertThat(this.instances.ledger().executions()).hasSize(1);
		assertThat(this.instances.ledger().executions().get(0).instance()).isEqualTo("dying");
	}

	@Test
	void redeliveryToTheSameInstanceAfterALostAckIsADuplicate() throws Exception {
		Instance instance = this.instances.start("only");
		instance.recorder().haltOnceAt(PipelinePoint.COMPLETED);
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-2"), "t-2");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.DUPLICATE));
			await().atMost(Duration.ofSeconds(5)).until(() -> probe.drained("TASKS", "worker"));
		}
		assertThat(this.instances.ledger().executionsOf("t-2")).isEqualTo(1);
		assertThat(instance.recorder().count(PipelinePoint.RECEIVED)).isEqualTo(2);
	}

}

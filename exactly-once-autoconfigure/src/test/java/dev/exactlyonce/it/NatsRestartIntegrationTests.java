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
 * nats-server is killed (SIGKILL) while a handler runs and started again on the same port and
 * store directory: the handler finishes, its completion record (in NATS KV, so also unreachable
 * for a while) is written once the server is back, and the message is acked or its redelivery
 * is recognised as a duplicate: one execution.
 */
class NatsRestartIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "3s")
			.with("exactlyonce.nats.reconnect-wait", "200ms");
	}

	@Test
	void serverKilledMidHandlerAndRestartedStillRunsTheTaskOnce() throws Exception {
		Instance instance = this.instances.start("a");
		this.instances.ledger().close();
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-1") == 1);

		this.nats.kill();
		this.instances.ledger().open();
		await().atMost(Duration.ofSeconds(10)).until(() -> instance.recorder().count(PipelinePoint.HANDLED) == 1);
		this.nats.start();

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			// the outcome is reported after the ack reached the server: wait for both
			await().atMost(Duration.ofSeconds(60))
				.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED)
						&& probe.drained("TASKS", "worker"));
		}
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
		assertThat(instance.recorder().outcomes()).contains(DeliveryOutcome.PROCESSED)
			.doesNotContain(DeliveryOutcome.CLAIM_LOST, DeliveryOutcome.COMPLETION_UNRECORDED);
		assertThat(instance.bean(IdempotencyStore.class).find("worker:t-1").orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
	}

}

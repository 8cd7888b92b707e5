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
 * The store is unreachable when the completion record must be written: the message is kept alive
 * with working acks and the write retried until the store answers; one execution, acked once.
 */
class StoreOutageIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "2s");
	}

	@Test
	void completionWrittenAfterAnOutageLongerThanTheAckWaitWithoutRedelivery() throws Exception {
		Instance instance = this.instances.start("a");
		instance.storeFaults().failCompletionsFor(Duration.ofSeconds(6));
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED) && probe.drained("TASKS", "worker"));
			assertThat(probe.consumer("TASKS", "worker").getRedelivered()).isZero();
		}
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(instance.recorder().count(PipelinePoint.RECEIVED)).isEqualTo(1);
		assertThat(instance.recorder().count(PipelinePoint.ACKED)).isEqualTo(1);
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
		assertThat(instance.bean(IdempotencyStore.class).find("worker:t-1").orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
	}

}

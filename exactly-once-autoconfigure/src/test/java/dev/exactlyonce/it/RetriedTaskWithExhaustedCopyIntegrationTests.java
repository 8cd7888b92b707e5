package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A business key published twice (two message ids): the second copy waits for the first copy's
 * long attempt and runs out of deliveries meanwhile. The first attempt then fails with a retryable
 * exception and is released for a retry, which it still has deliveries for. The exhausted copy must
 * not take the key down with it: the task is retried and completes once.
 */
class RetriedTaskWithExhaustedCopyIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "2s")
			.with("exactlyonce.consumers.worker.max-deliver", "2")
			.with("exactlyonce.consumers.worker.concurrency", "2")
			.with("exactlyonce.consumers.worker.retry-delay", "6s")
			.with("exactlyonce.store.lease", "3s")
			.with("test.key", "payload.taskId");
	}

	@Test
	void taskRetriedAfterARetryableFailureCompletesAlthoughItsWaitingCopyRanOutOfDeliveries() throws Exception {
		Instance instance = this.instances.start("a", "test.work-duration=8s", "test.failures=1");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-long"), "copy-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-long") == 1);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-long"), "copy-2");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(40))
				.until(() -> probe.stream("TASKS").getStreamState().getMsgCount() == 0
						&& instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED));
		}
		assertThat(this.instances.ledger().executionsOf("t-long"))
			.as("completed executions; starts %s, outcomes %s", this.instances.ledger().startedOf("t-long"),
					instance.recorder().outcomes())
			.isEqualTo(1);
		assertThat(instance.recorder().outcomes()).contains(DeliveryOutcome.PROCESSED);
	}

}

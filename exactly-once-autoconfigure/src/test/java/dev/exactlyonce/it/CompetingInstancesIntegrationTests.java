package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances on one durable consumer receive two messages carrying the same business key
 * (different message ids, so stream dedup cannot help): the idempotency claim lets exactly one
 * run.
 */
class CompetingInstancesIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("test.key", "payload.taskId")
			.with("test.work-duration", "3s")
			.with("exactlyonce.consumers.worker.max-ack-pending", "4")
			.with("exactlyonce.consumers.worker.ack-wait", "5s")
			.with("exactlyonce.store.lease", "6s");
	}

	@Test
	void sameBusinessKeyDeliveredToTwoInstancesRunsOnce() throws Exception {
		Instance first = this.instances.start("a");
		Instance second = this.instances.start("b");
		ExactlyOncePublisher publisher = first.bean(ExactlyOncePublisher.class);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("task-42"), "task-42-attempt-1");
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("task-42"), "task-42-attempt-2");

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(40)).until(() -> outcomes(first, second) >= 2
					&& probe.drained("TASKS", "worker"));
		}
		assertThat(this.instances.ledger().executionsOf("task-42")).isEqualTo(1);
		assertThat(first.recorder().count(PipelinePoint.RECEIVED)).as("instance a got a copy").isPositive();
		assertThat(second.recorder().count(PipelinePoint.RECEIVED)).as("instance b got a copy").isPositive();
		assertThat(first.recorder().outcomes()).doesNotContain(DeliveryOutcome.CLAIM_LOST);
		assertThat(second.recorder().outcomes()).doesNotContain(DeliveryOutcome.CLAIM_LOST);
		long processed = first.recorder().outcomes().stream().filter(DeliveryOutcome.PROCESSED::equals).count()
				+ second.recorder().outcomes().stream().filter(DeliveryOutcome.PROCESSED::equals).count();
		long duplicates = first.recorder().outcomes().stream().filter(DeliveryOutcome.DUPLICATE::equals).count()
				+ second.recorder().outcomes().stream().filter(DeliveryOutcome.DUPLICATE::equals).count();
		assertThat(processed).isEqualTo(1);
		assertThat(duplicates).isEqualTo(1);
	}

	@Test
	void copyWaitingForALiveClaimIsAckedAsDuplicateSoonAfterTheHolderCompletesNotAfterTheLease() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.store.lease=2m",
				"exactlyonce.consumers.worker.concurrency=2");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("task-7"), "task-7-attempt-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("task-7") == 1);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("task-7"), "task-7-attempt-2");
		await().atMost(Duration.ofSeconds(10)).until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED));

		await().atMost(Duration.ofSeconds(6)).until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.DUPLICATE));
		assertThat(this.instances.ledger().executionsOf("task-7")).isEqualTo(1);
	}

	private static long outcomes(Instance first, Instance second) {
		return first.recorder().outcomes().stream().filter((o) -> o != DeliveryOutcome.IN_PROGRESS_ELSEWHERE).count()
				+ second.recorder().outcomes().stream().filter((o) -> o != DeliveryOutcome.IN_PROGRESS_ELSEWHERE).count();
	}

}

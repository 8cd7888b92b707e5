package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
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
 * A claim whose holder died mid-work (lease expired, never completed) is handled per
 * {@code on-abandoned}: retried with the previous attempt in the context, or dead-lettered.
 */
class AbandonedClaimIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "2s")
			.with("exactlyonce.store.lease", "3s");
	}

	@Test
	void retryPolicyRunsAgainAndTellsTheHandlerAboutTheAbandonedAttempt() throws Exception {
		Instance instance = this.instances.start("a");
		instance.recorder().haltOnceAt(PipelinePoint.INVOKING);
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED) && probe.drained("TASKS", "worker"));
		}
		assertThat(this.instances.ledger().executions()).singleElement().satisfies((execution) -> {
			PreviousAttempt previous = execution.previousAttempt();
			assertThat(previous).isNotNull();
			assertThat(previous.abandoned()).isTrue();
			assertThat(previous.owner()).as("instance and stream sequence of the abandoned attempt").isEqualTo("a#1");
			assertThat(previous.attempts()).isEqualTo(1);
		});
		assertThat(instance.bean(IdempotencyStore.class).find("worker:t-1").orElseThrow().attempts()).isEqualTo(2);
	}

	@Test
	void deadLetterPolicyParksTheMessageWithoutRunningItAgain() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.consumers.worker.on-abandoned=dead-letter");
		instance.recorder().haltOnceAt(PipelinePoint.INVOKING);
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-2"),
				"t-2");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker").size() == 1
						&& probe.drained("TASKS", "worker"));
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker").get(0).getHeaders()
				.getFirst("Exactly-Once-Reason")).startsWith("abandoned");
		}
		assertThat(this.instances.ledger().started()).isEmpty();
		assertThat(instance.bean(IdempotencyStore.class).find("worker:t-2").orElseThrow().state())
			.isEqualTo(RecordState.DEAD_LETTERED);
		assertThat(instance.recorder().outcomes()).endsWith(DeliveryOutcome.DEAD_LETTERED);
	}

}

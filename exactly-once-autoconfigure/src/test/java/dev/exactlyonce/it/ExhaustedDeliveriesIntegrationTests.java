package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.nats.client.api.MessageInfo;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A message whose every delivery dies before it is settled (the process never acks) runs out of
 * deliveries without any handler failure; the MAX_DELIVERIES advisory gets it dead-lettered with
 * its original bytes, and it is removed from the WorkQueue stream only after that.
 */
class ExhaustedDeliveriesIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "1s")
			.with("exactlyonce.consumers.worker.max-deliver", "2");
	}

	@Test
	void messageNeverAckedIsDeadLetteredFromTheAdvisory() throws Exception {
		Instance instance = this.instances.start("a");
		instance.recorder().haltEveryTimeAt(PipelinePoint.RECEIVED);
		String payload = "{\"taskId\":\"t-ghost\",\"assignee\":\"marketing\",\"type\":\"blog-post\",\"payload\":{}}";
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post",
				payload.getBytes(StandardCharsets.UTF_8), "t-ghost");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker").size() == 1);
			MessageInfo deadLetter = probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker").get(0);
			assertThat(new String(deadLetter.getData(), StandardCharsets.UTF_8)).isEqualTo(payload);
			assertThat(deadLetter.getHeaders().getFirst("Exactly-Once-Reason"))
				.isEqualTo("max deliveries (2) reached without a completed attempt");
			assertThat(deadLetter.getHeaders().getFirst("Exactly-Once-Key")).isEqualTo("t-ghost");
			assertThat(deadLetter.getHeaders().getFirst("Exactly-Once-Stream-Sequence")).isEqualTo("1");
			await().atMost(Duration.ofSeconds(5)).until(() -> probe.stream("TASKS").getStreamState().getMsgCount() == 0);
		}
		assertThat(instance.recorder().count(PipelinePoint.RECEIVED)).isEqualTo(2);
		assertThat(this.instances.ledger().started()).isEmpty();
	}

	@Test
	void copyThatRanOutWaitingForALongRunningAttemptIsSettledAsItsDuplicateNotDeadLettered() throws Exception {
		Instance instance = this.instances.start("a", "test.key=payload.taskId", "test.work-duration=8s",
				"exactlyonce.consumers.worker.concurrency=2", "exactlyonce.consumers.worker.ack-wait=2s",
				"exactlyonce.store.lease=3s");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-long"), "copy-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-long") == 1);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-long"), "copy-2");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30)).until(() -> instance.recorder().outcomes().size() == 4
					&& probe.stream("TASKS").getStreamState().getMsgCount() == 0);
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker")).isEmpty();
		}
		assertThat(instance.recorder().outcomes()).containsExactlyInAnyOrder(DeliveryOutcome.IN_PROGRESS_ELSEWHERE,
				DeliveryOutcome.IN_PROGRESS_ELSEWHERE, DeliveryOutcome.PROCESSED, DeliveryOutcome.DUPLICATE);
		assertThat(this.instances.ledger().executionsOf("t-long")).isEqualTo(1);
		assertThat(this.instances.ledger().started()).hasSize(1);
	}

}

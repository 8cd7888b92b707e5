package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A handler that runs far longer than the ack wait is kept alive by working acks: the server does
 * not redeliver its message while it runs.
 */
@ExtendWith(OutputCaptureExtension.class)
class LongHandlerIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("test.work-duration", "7s");
	}

	@Test
	void handlerLongerThanAckWaitIsNotRedelivered() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.consumers.worker.ack-wait=2s");
		assertRunsOnceWithoutRedelivery(instance, "long-1");
	}

	@Test
	void withBackoffTheFirstBackoffEntryIsTheAckWaitThatWorkingAcksBeat() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.consumers.worker.ack-wait=1m",
				"exactlyonce.consumers.worker.backoff=2s,4s", "exactlyonce.consumers.worker.max-deliver=3");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.consumer("TASKS", "worker").getConsumerConfiguration().getAckWait())
				.as("nats-server 2.9 reports backoff[0] as the ack wait").isEqualTo(Duration.ofSeconds(2));
		}
		assertRunsOnceWithoutRedelivery(instance, "long-2");
	}

	@Test
	void workingAcksKeepBeatingAfterOneOfThemThrows(CapturedOutput output) throws Exception {
		String[] shortLease = { "exactlyonce.consumers.worker.ack-wait=2s", "exactlyonce.store.lease=3s" };
		Instance instance = this.instances.start("a", shortLease);
		this.instances.start("b", shortLease);
		instance.recorder().failWorkingAcks(1);
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("long-3"),
				"long-3");
		await().atMost(Duration.ofSeconds(30)).until(() -> !instance.recorder().outcomes().isEmpty());
		assertThat(this.instances.ledger().started()).as("handler invocations").hasSize(1);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(instance.recorder().workingAcks()).as("working acks after the failing one").isGreaterThan(3);
		assertThat(output).contains("Working ack of the message at stream 'TASKS', consumer 'worker', sequence 1, "
				+ "delivery 1 failed (java.lang.IllegalStateException: simulated failure of a working-ack observer); "
				+ "the next one follows on schedule");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(5)).until(() -> probe.drained("TASKS", "worker"));
			assertNoMessageDeliveredTwice(probe);
		}
	}

	private void assertRunsOnceWithoutRedelivery(Instance instance, String taskId) throws Exception {
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of(taskId),
				taskId);
		await().atMost(Duration.ofSeconds(30)).until(() -> !instance.recorder().outcomes().isEmpty());
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(5)).until(() -> probe.drained("TASKS", "worker"));
			assertNoMessageDeliveredTwice(probe);
		}
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(instance.recorder().count(PipelinePoint.RECEIVED)).isEqualTo(1);
		assertThat(this.instances.ledger().executions()).singleElement()
			.satisfies((execution) -> assertThat(execution.deliveryCount()).isEqualTo(1));
	}

}

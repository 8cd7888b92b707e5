package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A copy of a key (another message id) runs out of deliveries while the key's first copy runs; its
 * settlement waits for that attempt to end. The instance holding that wait is then shut down
 * (a routine deployment) and the task finishes on another instance. The server sends no second
 * MAX_DELIVERIES advisory, so the copy must still be settled (as a duplicate), not left on the
 * stream with no delivery, no ack pending and no outcome.
 */
@ExtendWith(OutputCaptureExtension.class)
class ExhaustedCopyAcrossShutdownIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "2s")
			.with("exactlyonce.consumers.worker.max-deliver", "3")
			.with("exactlyonce.consumers.worker.concurrency", "2")
			.with("exactlyonce.listener.shutdown-timeout", "2s")
			.with("exactlyonce.store.lease", "3s")
			.with("test.key", "payload.taskId");
	}

	@Test
	void copyWhoseSettlementWaitedOnAStoppedInstanceIsStillSettled(CapturedOutput output) throws Exception {
		Instance leaving = this.instances.start("leaving", "test.work-duration=60s");
		ExactlyOncePublisher publisher = leaving.bean(ExactlyOncePublisher.class);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-long"), "copy-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-long") == 1);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-long"), "copy-2");
		await().atMost(Duration.ofSeconds(20))
			.until(() -> output.getOut().contains("sequence 2, delivery 3 ran out of deliveries while its key is held"));
		Instance staying = this.instances.start("staying", "test.work-duration=0s");
		leaving.context().close();

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> staying.recorder().outcomes().contains(DeliveryOutcome.PROCESSED));
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(probe.stream("TASKS").getStreamState().getMsgCount())
					.as("messages left on TASKS; consumer %s; outcomes leaving %s, staying %s",
							probe.consumer("TASKS", "worker"), leaving.recorder().outcomes(),
							staying.recorder().outcomes())
					.isZero());
		}
		assertThat(this.instances.ledger().executionsOf("t-long")).isEqualTo(1);
	}

}

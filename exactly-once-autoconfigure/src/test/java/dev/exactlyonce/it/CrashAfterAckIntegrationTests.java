package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

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
 * An observer halting at {@link PipelinePoint#ACKED} stops the pipeline there, as a crash right
 * after the ack would: the message stays acknowledged and is never redelivered, and its outcome is
 * never reported. The halt is not mistaken for a failed ack.
 */
@ExtendWith(OutputCaptureExtension.class)
class CrashAfterAckIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "2s");
	}

	@ParameterizedTest(name = "pipelined: {0}")
	@ValueSource(booleans = { false, true })
	void aHaltAtAckedLeavesTheMessageAckedAndItsOutcomeUnreported(boolean pipelined, CapturedOutput output)
			throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.listener.pipelined=" + pipelined);
		instance.recorder().haltOnceAt(PipelinePoint.ACKED);
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"), "t-1");

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> output.getAll().contains("Pipeline halted at ACKED") && probe.drained("TASKS", "worker"));
			assertNoMessageDeliveredTwice(probe);
		}
		assertThat(output).contains("Message at stream 'TASKS', consumer 'worker', sequence 1, delivery 1 left "
				+ "unsettled: Pipeline halted at ACKED by an observer")
			.doesNotContain("not confirmed");
		assertThat(instance.recorder().count(PipelinePoint.ACKED)).isEqualTo(1);
		assertThat(instance.recorder().outcomes()).as("outcomes reported after the halt").isEmpty();
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
		assertThat(instance.bean(IdempotencyStore.class).find("worker:t-1").orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
	}

}

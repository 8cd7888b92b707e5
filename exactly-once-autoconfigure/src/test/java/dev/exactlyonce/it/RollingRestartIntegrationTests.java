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
 * A long task outlives as many routine shutdowns (a rolling deployment, one pod after the other) as
 * its consumer has deliveries. Each shutdown releases the task for the next instance; none is a
 * failure of the task, so the task must still run to completion once, not be dead-lettered.
 */
class RollingRestartIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.listener.shutdown-timeout", "2s")
			.with("exactlyonce.consumers.worker.ack-wait", "1m")
			.with("exactlyonce.consumers.worker.max-deliver", "2");
	}

	@Test
	void taskReleasedByAsManyShutdownsAsItHasDeliveriesStillCompletesOnce() throws Exception {
		Instance first = this.instances.start("first", "test.work-duration=30s");
		first.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-1") == 1);
		Instance second = this.instances.start("second", "test.work-duration=30s");
		first.context().close();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-1") == 2);
		Instance third = this.instances.start("third", "test.work-duration=0s");
		second.context().close();

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(20))
				.failFast("dead-lettered", () -> !probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker").isEmpty())
				.untilAsserted(() -> assertThat(probe.stream("TASKS").getStreamState().getMsgCount())
					.as("messages left on TASKS; consumer %s; outcomes first %s, second %s, third %s",
							probe.consumer("TASKS", "worker"), first.recorder().outcomes(),
							second.recorder().outcomes(), third.recorder().outcomes())
					.isZero());
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker"))
				.as("dead letters; outcomes first %s, second %s, third %s", first.recorder().outcomes(),
						second.recorder().outcomes(), third.recorder().outcomes())
				.isEmpty();
		}
		assertThat(third.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
	}

}

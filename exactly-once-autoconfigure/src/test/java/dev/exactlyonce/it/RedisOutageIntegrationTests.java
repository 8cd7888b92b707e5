package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Redis store's server is killed (SIGKILL) while a handler runs and started again (same port,
 * same append-only file) while the completion record is being retried: one execution, acked once.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisOutageIntegrationTests extends NatsIntegrationTestSupport {

	private final RedisServerProcess redis = new RedisServerProcess("always").start();

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.store.type", "redis")
			.with("spring.data.redis.host", this.redis.host())
			.with("spring.data.redis.port", this.redis.port())
			.with("spring.data.redis.timeout", "1s")
			.with("exactlyonce.consumers.worker.ack-wait", "2s");
	}

	@AfterEach
	void stopRedis() {
		this.redis.close();
	}

	@Test
	void outageLongerThanTheDeliveryBudgetRunsEveryTaskOnceAfterTheStoreReturns() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.consumers.worker.max-deliver=3",
				"exactlyonce.consumers.worker.retry-delay=1s", "exactlyonce.consumers.worker.concurrency=2");
		this.redis.kill();
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		for (int i = 1; i <= 3; i++) {
			publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("o-" + i), "o-" + i);
		}
		Duration budget = Duration.ofSeconds(2).multipliedBy(3);
		await().during(budget.plusSeconds(2)).atMost(budget.plusSeconds(10))
			.until(() -> this.instances.ledger().started().isEmpty()); // nothing runs through an outage longer than the budget
		this.redis.start();

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30)).until(() -> this.instances.ledger().executions().size() == 3
					&& probe.drained("TASKS", "worker") && probe.stream("TASKS").getStreamState().getMsgCount() == 0);
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker")).isEmpty();
		}
		for (int i = 1; i <= 3; i++) {
			assertThat(this.instances.ledger().executionsOf("o-" + i)).isEqualTo(1);
		}
	}

	@Test
	void redisKilledMidHandlerAndRestartedRecordsTheCompletionOnce(CapturedOutput output) throws Exception {
		Instance instance = this.instances.start("a");
		this.instances.ledger().close();
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-1") == 1);

		this.redis.kill();
		this.instances.ledger().open();
		await().atMost(Duration.ofSeconds(10)).until(() -> instance.recorder().count(PipelinePoint.HANDLED) == 1
				&& output.getOut().contains("Completion record for the message at stream 'TASKS', consumer 'worker', "
						+ "sequence 1, delivery 1 not written, retrying"));
		this.redis.start();

		assertProcessedOnceAndAckedOnce(instance, "t-1");
	}

}

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

package dev.exactlyonce.it;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.test.TcpProxy;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The NATS KV claim of a delivery is applied by the server but its answer (and the read-back's)
 * reaches the instance after {@code exactlyonce.nats.request-timeout}: the message is held while
 * the claim is retried, and the retry recognises the instance's own claim. The task runs once as a first attempt; it is
 * never taken for someone else's or an abandoned claim (which {@code on-abandoned: dead-letter}
 * would park).
 */
@ExtendWith(OutputCaptureExtension.class)
class LateClaimAnswerIntegrationTests extends NatsIntegrationTestSupport {

	private TcpProxy proxy;

	@Override
	protected void configure(TestInstances instances) {
		this.proxy = new TcpProxy(this.nats.port());
		instances.with("exactlyonce.nats.servers", "nats://127.0.0.1:" + this.proxy.port())
			.with("exactlyonce.consumers.worker.ack-wait", "2s")
			.with("exactlyonce.consumers.worker.retry-delay", "1s")
			.with("exactlyonce.consumers.worker.on-abandoned", "dead-letter")
			.with("exactlyonce.store.lease", "3s");
	}

	@AfterEach
	void stopProxy() {
		this.proxy.close();
	}

	@Test
	void claimAnsweredAfterTheRequestTimeoutRunsTheTaskOnceAsItsFirstAttempt(CapturedOutput output) throws Exception {
		Instance instance = this.instances.start("a");
		AtomicBoolean firstDelivery = new AtomicBoolean(true);
		instance.recorder().runAt(PipelinePoint.RECEIVED, () -> {
			if (firstDelivery.getAndSet(false)) {
				this.proxy.holdReplies();
			}
		});
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		await().atMost(Duration.ofSeconds(20)).until(() -> output.getOut().contains("Idempotency store unavailable "
				+ "while claiming the message at stream 'TASKS', consumer 'worker', sequence 1"));
		this.proxy.releaseReplies();

		await().atMost(Duration.ofSeconds(30))
			.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED)
					|| instance.recorder().outcomes().contains(DeliveryOutcome.DEAD_LETTERED));
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(this.instances.ledger().started()).singleElement()
			.satisfies((execution) -> assertThat(execution.previousAttempt()).isNull());
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
		assertThat(instance.bean(IdempotencyStore.class).find("worker:t-1").orElseThrow()).satisfies((record) -> {
			assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
			assertThat(record.attempts()).isEqualTo(1);
		});
	}

}

package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.test.TcpProxy;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis answers every call, but for a while too late for a claim's lease to reach its first
 * renewal (a degraded store rather than a down one). Like an outage, a slow spell must not spend
 * the task's deliveries: once Redis answers in time again the task runs once, and is not
 * dead-lettered for deliveries it never used.
 */
@ExtendWith(OutputCaptureExtension.class)
class SlowClaimAnswersIntegrationTests extends NatsIntegrationTestSupport {

	private final RedisServerProcess redis = new RedisServerProcess().start();

	/** After the first late answer: within the 6 s a claim may be held, long enough to spend both deliveries by nak. */
	private static final Duration SLOW_SPELL = Duration.ofSeconds(2);

	private final TcpProxy proxy = new TcpProxy(this.redis.port());

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.store.type", "redis")
			.with("spring.data.redis.host", this.redis.host())
			.with("spring.data.redis.port", this.proxy.port())
			.with("spring.data.redis.timeout", "5s")
			.with("exactlyonce.store.lease", "6s")
			.with("exactlyonce.consumers.worker.ack-wait", "3500ms")
			.with("exactlyonce.consumers.worker.working-ack-interval", "3s")
			.with("exactlyonce.consumers.worker.retry-delay", "1s")
			.with("exactlyonce.consumers.worker.max-deliver", "2");
	}

	@AfterEach
	void stopRedis() {
		this.proxy.close();
		this.redis.close();
	}

	@Test
	void slowSpellOfTheStoreDoesNotSpendTheTasksDeliveries(CapturedOutput output) throws Exception {
		Instance instance = this.instances.start("a");
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		ClaimResult.Acquired warmUp = (ClaimResult.Acquired) store.tryClaim("warm-up", "a", Duration.ofSeconds(1));
		store.release(warmUp.claim(), "warm-up");
		this.proxy.delayReplies(Duration.ofMillis(3500));
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		await().atMost(Duration.ofSeconds(30)).until(() -> output.getOut().contains("Claim on the message at stream "
				+ "'TASKS', consumer 'worker', sequence 1, delivery 1 was answered too late"));
		await().during(SLOW_SPELL).atMost(SLOW_SPELL.plusSeconds(10))
			.until(() -> this.instances.ledger().started().isEmpty()); // never run on a lease answered too late
		this.proxy.delayReplies(Duration.ZERO);

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> probe.stream("TASKS").getStreamState().getMsgCount() == 0
						&& !instance.recorder().outcomes().isEmpty());
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker"))
				.as("dead letters; outcomes %s", instance.recorder().outcomes())
				.isEmpty();
		}
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
	}

}

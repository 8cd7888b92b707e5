package dev.exactlyonce.it;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
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
 * An instance shuts down while its claim of a task is in flight to a slow Redis (applied by Redis,
 * answered after the shutdown interrupted its handlers, within the Redis timeout): the interrupt
 * reaches only handlers, never the claim, which is released unrun. A routine shutdown is a released attempt,
 * never an abandoned one: with {@code on-abandoned: dead-letter} the next instance must still run
 * the task, once, instead of parking it.
 */
class ShutdownDuringSlowClaimIntegrationTests extends NatsIntegrationTestSupport {

	/** After the interrupt at 80% of the 3 s shutdown budget, within the 3 s Redis timeout. */
	private static final Duration CLAIM_ANSWERED_AFTER = Duration.ofMillis(2800);

	private final RedisServerProcess redis = new RedisServerProcess().start();

	private final TcpProxy proxyOfLeaving = new TcpProxy(this.redis.port());

	private final TcpProxy proxyOfStaying = new TcpProxy(this.redis.port());

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.store.type", "redis")
			.with("spring.data.redis.host", this.redis.host())
			.with("spring.data.redis.timeout", "3s")
			.with("exactlyonce.store.lease", "8s")
			.with("exactlyonce.listener.shutdown-timeout", "3s")
			.with("exactlyonce.consumers.worker.ack-wait", "10s")
			.with("exactlyonce.consumers.worker.on-abandoned", "dead-letter");
	}

	@AfterEach
	void stopRedis() {
		this.proxyOfLeaving.close();
		this.proxyOfStaying.close();
		this.redis.close();
	}

	@Test
	void shutdownWhileTheClaimIsInFlightIsAReleasedAttemptNotAnAbandonedOne() throws Exception {
		Instance leaving = this.instances.start("leaving", "spring.data.redis.port=" + this.proxyOfLeaving.port());
		warmUp(leaving, "leaving");
		AtomicBoolean first = new AtomicBoolean(true);
		leaving.recorder().runAt(PipelinePoint.RECEIVED, () -> {
			if (first.getAndSet(false)) {
				this.proxyOfLeaving.delayReplies(CLAIM_ANSWERED_AFTER);
				new Thread(() -> leaving.context().close(), "closing-leaving").start();
			}
		});
		leaving.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> !leaving.context().isActive());
		Instance staying = this.instances.start("staying", "spring.data.redis.port=" + this.proxyOfStaying.port());

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> probe.stream("TASKS").getStreamState().getMsgCount() == 0
						&& !staying.recorder().outcomes().isEmpty());
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker"))
				.as("dead letters; outcomes leaving %s, staying %s", leaving.recorder().outcomes(),
						staying.recorder().outcomes())
				.isEmpty();
		}
		assertThat(staying.recorder().outcomes()).contains(DeliveryOutcome.PROCESSED);
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
	}

	private static void warmUp(Instance instance, String name) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		ClaimResult.Acquired warmUp = (ClaimResult.Acquired) store.tryClaim("warm-up:" + name, name,
				Duration.ofSeconds(1));
		store.release(warmUp.claim(), "warm-up");
	}

}

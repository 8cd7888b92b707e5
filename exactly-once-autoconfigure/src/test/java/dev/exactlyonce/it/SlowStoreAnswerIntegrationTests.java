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
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.test.TcpProxy;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances on the Redis store, each behind its own proxy. The instance that receives the task
 * first gets Redis's answers 4.5 s late (within {@code spring.data.redis.timeout} of 5.5 s, lease
 * 6 s): its claim is applied at once but answered when too little of the lease is left to reach
 * the first renewal, and the other instance takes the task over when that lease ends. The task
 * must have one side effect, not one per instance.
 */
class SlowStoreAnswerIntegrationTests extends NatsIntegrationTestSupport {

	private static final Duration REPLY_DELAY = Duration.ofMillis(4500);

	private final RedisServerProcess redis = new RedisServerProcess().start();

	private final TcpProxy proxyOfA = new TcpProxy(this.redis.port());

	private final TcpProxy proxyOfB = new TcpProxy(this.redis.port());

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.store.type", "redis")
			.with("spring.data.redis.host", this.redis.host())
			.with("spring.data.redis.timeout", "5500ms")
			.with("exactlyonce.store.lease", "6s")
			.with("exactlyonce.consumers.worker.ack-wait", "3500ms")
			.with("exactlyonce.consumers.worker.working-ack-interval", "3s")
			.with("exactlyonce.consumers.worker.retry-delay", "1s")
			.with("test.work-duration", "3s");
	}

	@AfterEach
	void stopRedis() {
		this.proxyOfA.close();
		this.proxyOfB.close();
		this.redis.close();
	}

	@Test
	void claimAnsweredTooLateForItsLeaseIsNeverRunOnThatLease() throws Exception {
		Instance a = this.instances.start("a", "spring.data.redis.port=" + this.proxyOfA.port());
		Instance b = this.instances.start("b", "spring.data.redis.port=" + this.proxyOfB.port());
		warmUp(a, "a");
		warmUp(b, "b");
		AtomicBoolean firstDelivery = new AtomicBoolean(true);
		slowDownOnFirstDelivery(a, this.proxyOfA, firstDelivery);
		slowDownOnFirstDelivery(b, this.proxyOfB, firstDelivery);

		a.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"), "t-1");

		await().atMost(Duration.ofSeconds(40)).until(() -> a.recorder().outcomes().contains(DeliveryOutcome.RETRIED)
				|| b.recorder().outcomes().contains(DeliveryOutcome.RETRIED));
		this.proxyOfA.delayReplies(Duration.ZERO);
		this.proxyOfB.delayReplies(Duration.ZERO);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(40))
				.until(() -> (a.recorder().outcomes().contains(DeliveryOutcome.PROCESSED)
						|| b.recorder().outcomes().contains(DeliveryOutcome.PROCESSED))
						&& probe.drained("TASKS", "worker"));
		}
		assertThat(this.instances.ledger().executionsOf("t-1"))
			.as("side effects of the task; outcomes a %s, b %s", a.recorder().outcomes(), b.recorder().outcomes())
			.isEqualTo(1);
		assertThat(this.instances.ledger().started()).singleElement()
			.satisfies((execution) -> assertThat(execution.previousAttempt().abandoned())
				.as("the late claim was released, not abandoned")
				.isFalse());
		assertThat(a.bean(IdempotencyStore.class).find("worker:t-1").orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
	}

	/**
	 * Connects an instance to Redis and loads the store's scripts before any answer is late: Lettuce
	 * connects on first use, and a first EVALSHA answered NOSCRIPT costs a second round trip.
	 */
	private static void warmUp(Instance instance, String name) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		ClaimResult.Acquired warmUp = (ClaimResult.Acquired) store.tryClaim("warm-up:" + name, name,
				Duration.ofSeconds(1));
		store.release(warmUp.claim(), "warm-up");
	}

	private static void slowDownOnFirstDelivery(Instance instance, TcpProxy proxy, AtomicBoolean firstDelivery) {
		instance.recorder().runAt(PipelinePoint.RECEIVED, () -> {
			if (firstDelivery.getAndSet(false)) {
				proxy.delayReplies(REPLY_DELAY);
			}
		});
	}

}

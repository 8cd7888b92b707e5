package dev.exactlyonce.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.testapp.ApprovalTaskHandler;
import dev.exactlyonce.testapp.ApprovalTaskHandler.Approval;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Durable waits on the default store, NATS KV: its bucket keeps entries {@code completed-ttl} plus
 * the longest wait, so a sealed journal part outlives the wait it was written before; and tasks
 * waiting while the nats-server is killed and restarted (their sleeps ending meanwhile) resume once.
 */
class DurableWaitsIntegrationTests extends AbstractDurableWaitsIntegrationTests {

	private static final int TASKS = 10;

	@Override
	protected void configureStore(TestInstances instances) {
		instances.with("exactlyonce.nats.reconnect-wait", "200ms");
	}

	@Test
	void tasksWaitingWhileTheServerIsKilledAndRestartedResumeOnce() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.nap=2s");
		List<String> keys = new ArrayList<>();
		for (int n = 0; n < TASKS; n++) {
			keys.add("t-restart-" + n);
			publish(instance, keys.get(n));
		}
		keys.forEach((key) -> awaitState(instance, key, RecordState.WAITING));

		this.nats.kill();
		Thread.sleep(2500);
		this.nats.start();

		for (String key : keys) {
			SignalOutcome answer = await().atMost(Duration.ofSeconds(30))
				.ignoreExceptions()
				.until(() -> signal(instance, key, new Approval(true, "after-restart"), "s-" + key), (outcome) -> true);
			assertThat(answer).as(key).isIn(SignalOutcome.BUFFERED, SignalOutcome.RESUMED);
		}
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		for (String key : keys) {
			await().atMost(Duration.ofSeconds(60)).until(() -> handler.result(key) != null);
			assertThat(handler.result(key)).as(key).endsWith("approved by after-restart");
			assertThat(this.instances.ledger().commitsOf(key)).as(key).hasSize(1);
			awaitState(instance, key, RecordState.COMPLETED);
		}
		assertThat(handler.runs("draft")).as("model calls").isEqualTo(TASKS);
		assertThat(handler.runs("commit")).isEqualTo(TASKS);
	}

}

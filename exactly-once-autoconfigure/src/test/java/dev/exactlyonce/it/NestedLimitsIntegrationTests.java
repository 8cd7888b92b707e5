package dev.exactlyonce.it;

import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.testapp.NestedLimitTaskHandler;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Adversarial cases of limits: a listener under a limit whose step is under the same limit and key.
 */
class NestedLimitsIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected final void configure(TestInstances instances) {
		instances.with("test.limits.nested", "true")
			.with("exactlyonce.consumers.nested.stream", "TASKS")
			.with("exactlyonce.consumers.nested.filter-subject", "agents.nested.tasks.>")
			.with("exactlyonce.consumers.nested.concurrency", "4")
			.with("exactlyonce.store.lease", "3s");
	}

	@BeforeEach
	void forgetWhatWasSeen() {
		NestedLimitTaskHandler.reset();
	}

	@Test
	void aTaskWhoseStepIsUnderItsListenersLimitOfOneRuns() {
		Instance a = this.instances.start("a", "exactlyonce.limits.deploys.concurrency=1");
		publish(a, "n-1", "svc");
		awaitCompleted(a, "n-1");
	}

	@Test
	void aStepUnderItsListenersLimitNeverLetsMoreThanItsConcurrencyRun() {
		Instance a = this.instances.start("a", "exactlyonce.limits.deploys.concurrency=2");
		IntStream.range(0, 6).forEach((n) -> publish(a, "m-" + n, "svc"));
		IntStream.range(0, 6).forEach((n) -> awaitCompleted(a, "m-" + n));
		assertThat(NestedLimitTaskHandler.mostRunning()).as("tasks of key 'svc' at once, limit 2").isLessThanOrEqualTo(2);
	}

	@Test
	void aTaskWaitingAtALimitSaysSoInItsRecordAsTheDocsShowIt() {
		Instance a = this.instances.start("a", "exactlyonce.limits.deploys.concurrency=1");
		publish(a, "w-1", "svc");
		publish(a, "w-2", "svc");
		IdempotencyStore store = a.bean(IdempotencyStore.class);
		String summary = await().atMost(Duration.ofSeconds(60))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> IntStream.rangeClosed(1, 2)
				.mapToObj((n) -> store.find("nested:w-" + n).orElse(null))
				.filter((record) -> record != null && record.state() == RecordState.WAITING)
				.map(IdempotencyRecord::resultSummary)
				.findFirst()
				.orElse(null), (found) -> found != null);
		assertThat(summary).as("docs/limits.md: limit 'deploys' key 'checkout' until ...")
			.startsWith("limit 'deploys' key 'svc' until ");
	}

	/**
	 * A key whose queue is long (about 9,000 waiters, seeded as a steady overload leaves them) keeps
	 * taking arrivals: the queue lives in one KV entry, bounded by the server's max payload (1 MiB).
	 */
	private static void publish(Instance instance, String taskId, String service) {
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.nested.tasks.run", new TaskAssignment(taskId, service, "deploy", Map.of()), taskId);
	}

	private static void awaitCompleted(Instance instance, String taskId) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(60))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find("nested:" + taskId).orElse(null),
					(record) -> record != null && record.state() == RecordState.COMPLETED);
	}

}

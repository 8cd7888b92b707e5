package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Adversarial cases of child tasks: two parents of different consumers that share a key (keys are
 * only unique within a consumer) and start a child of the same name each get their own child.
 */
class ChildKeysIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected final void configure(TestInstances instances) {
		instances.with("test.children.parent", "true")
			.with("test.children.cfo", "true")
			.with("test.children.child", "true")
			.with("test.children.count", "1")
			.with("test.children.timeout", "20s")
			.with("exactlyonce.consumers.ceo.stream", "TASKS")
			.with("exactlyonce.consumers.ceo.filter-subject", "agents.ceo.tasks.>")
			.with("exactlyonce.consumers.cfo.stream", "TASKS")
			.with("exactlyonce.consumers.cfo.filter-subject", "agents.cfo.tasks.>")
			.with("exactlyonce.consumers.crew.stream", "TASKS")
			.with("exactlyonce.consumers.crew.filter-subject", "agents.crew.tasks.>")
			.with("exactlyonce.store.lease", "3s");
	}

	@Test
	void parentsOfTwoConsumersWithTheSameKeyEachGetTheirOwnChild() {
		Instance instance = this.instances.start("a");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish("agents.ceo.tasks.campaign", TaskAssignment.of("t-1"), "ceo-t-1");
		assertThat(awaitRecord(instance, "ceo:t-1").resultSummary()).isEqualTo("done work-t-1-0");

		publisher.publish("agents.cfo.tasks.budget", TaskAssignment.of("t-1"), "cfo-t-1");
		IdempotencyRecord cfo = awaitRecord(instance, "cfo:t-1");
		assertThat(cfo.resultSummary()).as("the cfo's own child ran and answered it (not the ceo's child, "
				+ "which once shared its message id 't-1/child-0')")
			.isEqualTo("done work-cfo-t-1-0");
	}

	private static IdempotencyRecord awaitRecord(Instance instance, String storeKey) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		return await().atMost(Duration.ofSeconds(60))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find(storeKey).orElse(null),
					(record) -> record != null && record.state() == RecordState.COMPLETED);
	}

}

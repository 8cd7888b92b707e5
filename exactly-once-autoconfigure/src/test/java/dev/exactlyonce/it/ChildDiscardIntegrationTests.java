package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.OperationRefusedException;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A child's dead letter discarded in an application that does not declare its parent's consumer is
 * refused before anything is recorded (its parent could not be told), and discarded where the
 * parent's consumer is declared, the parent learns it.
 */
class ChildDiscardIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected final void configure(TestInstances instances) {
		instances.with("test.children.count", "1")
			.with("test.children.failing", "0")
			.with("exactlyonce.consumers.crew.stream", "TASKS")
			.with("exactlyonce.consumers.crew.filter-subject", "agents.crew.tasks.>")
			.with("exactlyonce.consumers.crew.non-retryable-exceptions", IllegalArgumentException.class.getName())
			.with("exactlyonce.store.lease", "3s");
	}

	@Test
	void aChildsDeadLetterIsDiscardedOnlyWhereItsParentCanBeTold() {
		Instance parents = this.instances.start("parents", "test.children.parent=true",
				"exactlyonce.consumers.ceo.stream=TASKS", "exactlyonce.consumers.ceo.filter-subject=agents.ceo.tasks.>");
		Instance children = this.instances.start("children", "test.children.child=true");
		parents.bean(ExactlyOncePublisher.class).publish("agents.ceo.tasks.campaign", TaskAssignment.of("d-1"), "d-1");
		awaitRecord(children, "crew:ceo/d-1/child-0", RecordState.DEAD_LETTERED);
		awaitRecord(parents, "ceo:d-1", RecordState.WAITING);

		DeadLetterOperations childrensOperations = children.bean(DeadLetterOperations.class);
		long sequence = childrensOperations.list("crew", 1, 10).get(0).sequence();
		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> childrensOperations.discard("crew", sequence, "ops", "not worth it"))
			.withMessageContaining("declares consumer 'ceo'")
			.extracting(OperationRefusedException::kind)
			.isEqualTo(OperationRefusedException.Kind.CONFLICT);
		assertThat(children.bean(IdempotencyStore.class).find("crew:ceo/d-1/child-0").orElseThrow().audit())
			.as("nothing recorded").isEmpty();

		parents.bean(DeadLetterOperations.class).discard("crew", sequence, "ops", "not worth it");
		IdempotencyRecord parent = awaitRecord(parents, "ceo:d-1", RecordState.COMPLETED);
		assertThat(parent.resultSummary()).isEqualTo("failed ceo/d-1/child-0 (discarded): not worth it");
		assertThat(children.bean(IdempotencyStore.class).find("crew:ceo/d-1/child-0").orElseThrow().audit())
			.extracting(OperatorAction::kind)
			.containsExactly(OperatorAction.Kind.DISCARD);
	}

	private static IdempotencyRecord awaitRecord(Instance instance, String storeKey, RecordState state) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		return await().atMost(Duration.ofSeconds(30))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find(storeKey).orElse(null), (record) -> record != null && record.state() == state);
	}

}

package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.audit.Discrepancy;
import dev.exactlyonce.audit.Reconciler;
import dev.exactlyonce.operations.ChildLink;
import dev.exactlyonce.operations.ParentLink;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskStatus;
import dev.exactlyonce.operations.TaskView;
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
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * A parent whose keys live in a namespace of its own ({@code campaigns}, not its consumer's name
 * {@code ceo}) is found by applications that declare its consumer with
 * {@code exactlyonce.consumers.ceo.namespace} and have no listener on it: the application running
 * its children resumes it with their results or fails it with a child's dead letter, and an operator
 * application reads it and its children, resubmits it and finds its stuck claims.
 */
class ConsumerNamespaceIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.ceo.tasks.campaign";

	private static final String NAMESPACE = "exactlyonce.consumers.ceo.namespace=campaigns";

	@Override
	protected final void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.ceo.stream", "TASKS")
			.with("exactlyonce.consumers.ceo.filter-subject", "agents.ceo.tasks.>")
			.with("exactlyonce.consumers.crew.stream", "TASKS")
			.with("exactlyonce.consumers.crew.filter-subject", "agents.crew.tasks.>")
			.with("exactlyonce.consumers.crew.non-retryable-exceptions", IllegalArgumentException.class.getName())
			.with("exactlyonce.store.lease", "3s");
	}

	@Test
	void aParentOfItsOwnNamespaceIsResumedAndReadWhereOnlyItsConsumerIsDeclared() {
		Instance parents = this.instances.start("parents", "test.children.parent=true",
				"test.children.namespace=campaigns");
		Instance children = this.instances.start("children", "test.children.child=true", NAMESPACE);
		publish(parents, "c-1");

		IdempotencyRecord parent = awaitRecord(parents, "campaigns:c-1", RecordState.COMPLETED);
		assertThat(parent.resultSummary()).isEqualTo("done work-c-1-0,work-c-1-1,work-c-1-2");
		assertThat(parents.bean(IdempotencyStore.class).find("ceo:c-1")).as("nothing under the consumer's name")
			.isEmpty();
		assertThat(children.bean(IdempotencyStore.class).find("crew:ceo/c-1/child-0")).get()
			.extracting(IdempotencyRecord::state)
			.isEqualTo(RecordState.COMPLETED);

		Instance operator = this.instances.start("operator", NAMESPACE);
		TaskInspector inspector = operator.bean(TaskInspector.class);
		TaskView task = inspector.task("ceo", "c-1").orElseThrow();
		assertThat(task.status()).isEqualTo(TaskStatus.COMPLETED);
		assertThat(task.children()).extracting(ChildLink::key, ChildLink::status)
			.containsExactly(tuple("ceo/c-1/child-0", TaskStatus.COMPLETED),
					tuple("ceo/c-1/child-1", TaskStatus.COMPLETED),
					tuple("ceo/c-1/child-2", TaskStatus.COMPLETED));
		assertThat(inspector.task("crew", "ceo/c-1/child-1").orElseThrow().parent())
			.isEqualTo(new ParentLink("ceo", "c-1", "child-1"));

		operator.bean(IdempotencyStore.class).tryClaim("campaigns:stuck", "dead-instance:42", Duration.ofMillis(1));
		Reconciler reconciler = operator.bean(Reconciler.class);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> reconciler.reconcile(Duration.ofHours(1)).consumers(), (consumers) -> consumers.stream()
				.anyMatch((consumer) -> consumer.consumer().equals("ceo") && consumer.discrepancies().stream()
					.anyMatch((found) -> found.type() == Discrepancy.Type.STUCK_CLAIM
							&& found.key().equals("campaigns:stuck"))));
	}

	@Test
	void aChildsDeadLetterFailsItsParentOfItsOwnNamespaceAndAnOperatorApplicationResubmitsIt() {
		this.instances.with("test.children.count", "1").with("test.children.failing", "0");
		Instance parents = this.instances.start("parents", "test.children.parent=true", NAMESPACE);
		this.instances.start("children", "test.children.child=true", NAMESPACE);
		publish(parents, "d-1");
		assertThat(awaitRecord(parents, "campaigns:d-1", RecordState.COMPLETED).resultSummary())
			.startsWith("failed ceo/d-1/child-0 (dead-lettered): handler failed with a non-retryable exception");

		Instance operator = this.instances.start("operator", NAMESPACE);
		operator.bean(ExactlyOncePublisher.class)
			.resubmit("ceo", "d-1", SUBJECT, TaskAssignment.of("d-1"), "ops", "crew fixed");

		IdempotencyStore store = parents.bean(IdempotencyStore.class);
		IdempotencyRecord again = await().atMost(Duration.ofSeconds(30))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find("campaigns:d-1").orElseThrow(), (record) -> record.state() == RecordState.COMPLETED
					&& record.resultSummary().startsWith("failed ceo/d-1/run-2/child-0 (dead-lettered)"));
		assertThat(again.audit()).extracting(OperatorAction::kind, OperatorAction::operator)
			.contains(tuple(OperatorAction.Kind.RESUBMIT, "ops"));
	}

	private static void publish(Instance instance, String taskId) {
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of(taskId), taskId);
	}

	private static IdempotencyRecord awaitRecord(Instance instance, String storeKey, RecordState state) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		return await().atMost(Duration.ofSeconds(30))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find(storeKey).orElse(null), (record) -> record != null && record.state() == state);
	}

}

package dev.exactlyonce.it;

import java.time.Duration;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.testapp.SealedOutcomeTaskHandler;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A child whose report to its parent failed after its result was journaled: its next attempt
 * reports the journaled result without running its handler, read back as the handler's declared
 * return type where it can be, and completes cleanly where it cannot.
 */
class ChildResultReportedAgainIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("test.children.parent", "true")
			.with("test.children.sealed", "true")
			.with("exactlyonce.consumers.ceo.stream", "TASKS")
			.with("exactlyonce.consumers.ceo.filter-subject", "agents.ceo.tasks.>")
			.with("exactlyonce.consumers.ceo.ack-wait", "5s")
			.with("exactlyonce.consumers.crew.stream", "TASKS")
			.with("exactlyonce.consumers.crew.filter-subject", "agents.crew.tasks.>")
			.with("exactlyonce.consumers.crew.ack-wait", "5s")
			.with("exactlyonce.consumers.posts.stream", "TASKS")
			.with("exactlyonce.consumers.posts.filter-subject", "agents.posts.tasks.>")
			.with("exactlyonce.consumers.posts.ack-wait", "5s")
			.with("exactlyonce.store.lease", "3s")
			.with("exactlyonce.waits.recheck-interval", "2s");
	}

	/**
	 * A child declared to return a sealed interface without type information: the recovering attempt
	 * cannot read the journaled JSON back as that interface; it still completes without running the
	 * handler and without a failed attempt after its record, summarized as the journaled JSON.
	 */
	@Test
	void aChildRecoveredAfterItsReportFailedCompletesCleanlyWhenItsResultCannotBeReadBack() {
		Instance instance = this.instances.start("a", "test.children.count=1");
		instance.recorder().haltOnceAt(PipelinePoint.CHILD_RESULT_STORED);
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.ceo.tasks.campaign", TaskAssignment.of("c-sealed"), "c-sealed");

		IdempotencyRecord parent = awaitRecord(instance, "ceo:c-sealed", RecordState.COMPLETED);
		assertThat(parent.resultSummary()).isEqualTo("done work-c-sealed-0");
		assertThat(instance.bean(SealedOutcomeTaskHandler.class).runsOf("ceo/c-sealed/child-0"))
			.as("the later attempt reported the journaled result").isEqualTo(1);
		IdempotencyRecord child = awaitRecord(instance, "crew:ceo/c-sealed/child-0", RecordState.COMPLETED);
		SoftAssertions.assertSoftly((softly) -> {
			softly.assertThat(instance.recorder().outcomes())
				.as("no attempt failed after the child's record was completed")
				.doesNotContain(DeliveryOutcome.RETRIED, DeliveryOutcome.DEAD_LETTERED);
			softly.assertThat(child.resultSummary()).as("the child's summary: its journaled result")
				.isEqualTo("{\"value\":\"work-c-sealed-0\"}");
		});
	}

	/**
	 * A child that returns nothing ({@code void}, or {@code null}): its journaled result is the JSON
	 * {@code null}; the recovering attempt reports it without running the handler again.
	 */
	@Test
	void aChildThatReturnsNothingIsNotRunAgainAfterItsReportFailed() {
		Instance instance = this.instances.start("a", "test.children.count=1", "test.children.posts=true");
		instance.recorder().haltOnceAt(PipelinePoint.CHILD_RESULT_STORED);
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.ceo.tasks.campaign", TaskAssignment.of("c-void"), "c-void");

		IdempotencyRecord parent = awaitRecord(instance, "ceo:c-void", RecordState.COMPLETED);
		assertThat(parent.resultSummary()).isEqualTo("done null");
		awaitRecord(instance, "posts:c-void-post-0", RecordState.COMPLETED);
		assertThat(instance.bean(SealedOutcomeTaskHandler.class).runsOf("c-void-post-0"))
			.as("handler runs: the later attempt reports the journaled result").isEqualTo(1);
	}

	private IdempotencyRecord awaitRecord(Instance instance, String storeKey, RecordState state) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		return await().atMost(Duration.ofSeconds(60))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find(storeKey).orElse(null), (record) -> record != null && record.state() == state);
	}

}

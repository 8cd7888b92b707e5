package dev.exactlyonce.it;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.children.ChildTask;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.testapp.CeoTaskHandler;
import dev.exactlyonce.testapp.CrewTaskHandler;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Child tasks on the default store, NATS KV; a parent whose instance stops in the middle of
 * starting its children, taken over by another instance: every child is published and run once;
 * and children that die after storing their results, before resuming their parent.
 */
class ChildTasksIntegrationTests extends AbstractChildTasksIntegrationTests {

	@Override
	protected void configureStore(TestInstances instances) {
	}

	@Test
	void aParentStoppedMidFanOutIsTakenOverAndStartsEachChildOnce() throws Exception {
		Instance first = this.instances.start("a", "test.children.child=false", "test.children.count=4",
				"test.children.hold-after=2", "exactlyonce.listener.shutdown-timeout=2s");
		publish(first, "c-killed");
		CeoTaskHandler held = first.bean(CeoTaskHandler.class);
		assertThat(held.awaitHolding()).isTrue();
		first.context().close();

		Instance second = this.instances.start("b", "test.children.count=4");
		IdempotencyRecord completed = awaitParent(second, "c-killed", RecordState.COMPLETED);
		held.release();
		assertThat(completed.resultSummary()).isEqualTo("done work-c-killed-0,work-c-killed-1,work-c-killed-2,"
				+ "work-c-killed-3");
		List<Long> sequences = IntStream.range(0, 4)
			.mapToObj((n) -> childTask(second, completed.journal().find("child-" + n).orElseThrow()))
			.map(ChildTask::streamSequence)
			.toList();
		assertThat(sequences).as("each child stored once").doesNotHaveDuplicates();
		IntStream.range(0, 4).forEach((n) -> assertThat(this.instances.ledger().commitsOf("ceo/c-killed/child-" + n))
			.as("side effects of child " + n).hasSize(1));
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30)).until(() -> probe.drained("TASKS", "crew"));
			assertThat(probe.deliveries("TASKS", "crew")).as("child messages delivered: 4, none twice").isEqualTo(4);
		}
	}

	@Test
	void childrenThatDieAfterStoringTheirResultsBeforeResumingTheirParentAreFoundByTheWaitTimer() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.waits.recheck-interval=2s");
		// every attempt of every child halts between storing its result and resuming its parent
		instance.recorder().haltEveryTimeAt(PipelinePoint.CHILD_RESULT_STORED);
		publish(instance, "c-halted");

		IdempotencyRecord completed = awaitParent(instance, "c-halted", RecordState.COMPLETED);
		assertThat(completed.resultSummary()).isEqualTo("done work-c-halted-0,work-c-halted-1,work-c-halted-2");
		IntStream.range(0, 3).forEach((n) -> assertThat(this.instances.ledger().commitsOf("ceo/c-halted/child-" + n))
			.as("side effects of child " + n).hasSize(1));
		assertThat(instance.recorder().count(PipelinePoint.CHILD_RESULT_STORED)).as("the children halted there")
			.isGreaterThanOrEqualTo(3);
		CrewTaskHandler crew = instance.bean(CrewTaskHandler.class);
		IntStream.range(0, 3).forEach((n) -> assertThat(crew.runsOf("ceo/c-halted/child-" + n))
			.as("handler runs of child " + n + ": later attempts report its journaled result").isEqualTo(1));
	}

}

package dev.exactlyonce.it;

import java.time.Duration;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.children.ChildTask;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.DeadLetterView;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.testapp.CeoTaskHandler;
import dev.exactlyonce.testapp.CrewTaskHandler;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A parent task starts child tasks and waits for their results without holding anything: each
 * child is published once (also when the parent is taken over mid-fan-out), its result reaches the
 * parent whether it finishes before or after the parent waits, a dead-lettered child fails the
 * parent's wait until a replay completes it, a discarded one fails it for good, and a resubmitted
 * parent starts new children. A subclass per store.
 */
abstract class AbstractChildTasksIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.ceo.tasks.campaign";

	@Override
	protected final void configure(TestInstances instances) {
		configureStore(instances.with("test.children.parent", "true")
			.with("test.children.child", "true")
			.with("exactlyonce.consumers.ceo.stream", "TASKS")
			.with("exactlyonce.consumers.ceo.filter-subject", "agents.ceo.tasks.>")
			.with("exactlyonce.consumers.ceo.ack-wait", "5s")
			.with("exactlyonce.consumers.crew.stream", "TASKS")
			.with("exactlyonce.consumers.crew.filter-subject", "agents.crew.tasks.>")
			.with("exactlyonce.consumers.crew.non-retryable-exceptions", IllegalArgumentException.class.getName())
			.with("exactlyonce.consumers.crew.concurrency", "4")
			.with("exactlyonce.store.lease", "3s"));
	}

	/**
	 * Selects the store of the subclass.
	 * @param instances the instances to configure
	 */
	protected abstract void configureStore(TestInstances instances);

	@Test
	void aParentAwaitsAllItsChildrenAndGetsTheirResultsWithoutHoldingAMessage() throws Exception {
		Instance instance = this.instances.start("a", "test.children.held=0");
		publish(instance, "c-all");
		// it suspends on the last child missing: child 2 or 1 until they finish, then the held child 0
		IdempotencyRecord waiting = await().atMost(Duration.ofSeconds(30))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> instance.bean(IdempotencyStore.class).find("ceo:c-all").orElse(null),
					(record) -> record != null && record.state() == RecordState.WAITING
							&& record.resultSummary().startsWith("child 'child-0.result' until "));
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30)).until(() -> probe.drained("TASKS", "ceo"));
		}
		assertThat(waiting.journal().find("child-0")).get()
			.satisfies((step) -> assertThat(childTask(instance, step).key()).isEqualTo("ceo/c-all/child-0"));
		assertThat(go(instance, "ceo/c-all/child-0")).isEqualTo(SignalOutcome.RESUMED);

		IdempotencyRecord completed = awaitParent(instance, "c-all", RecordState.COMPLETED);
		assertThat(completed.resultSummary()).isEqualTo("done work-c-all-0,work-c-all-1,work-c-all-2");
		assertThat(completed.journal().find("crew")).get().extracting(StepRecord::state).isEqualTo(StepState.DONE);
		IntStream.range(0, 3).forEach((n) -> assertThat(this.instances.ledger().commitsOf("ceo/c-all/child-" + n))
			.as("side effects of child " + n).hasSize(1));
		assertThat(completed.audit()).extracting(OperatorAction::kind).containsOnly(OperatorAction.Kind.RESUME);
	}

	@Test
	void childrenThatFinishBeforeTheirParentWaitsAreNotMissed() throws Exception {
		Instance instance = this.instances.start("a", "test.children.nap=2s", "test.children.await=each");
		publish(instance, "c-early");
		awaitParent(instance, "c-early", RecordState.WAITING);
		IntStream.range(0, 3).forEach((n) -> awaitRecord(instance, "crew:ceo/c-early/child-" + n, RecordState.COMPLETED));

		IdempotencyRecord completed = awaitParent(instance, "c-early", RecordState.COMPLETED);
		assertThat(completed.resultSummary()).isEqualTo("done work-c-early-0,work-c-early-1,work-c-early-2");
		assertThat(completed.audit()).as("resumed once, by the end of its nap: every result was there").hasSize(1);
	}

	@Test
	void aHundredChildrenResumeTheirParentFarFewerTimesThanOncePerChild() throws Exception {
		// each child sleeps 2 s first, so they all finish after their parent waits
		Instance instance = this.instances.start("a", "test.children.count=100", "test.children.child-nap=2s");
		publish(instance, "c-hundred");

		IdempotencyRecord completed = await().atMost(Duration.ofSeconds(120))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> instance.bean(IdempotencyStore.class).find("ceo:c-hundred").orElse(null),
					(record) -> record != null && record.state() == RecordState.COMPLETED);
		assertThat(instance.bean(CeoTaskHandler.class).result("c-hundred").split(","))
			.containsExactlyElementsOf(IntStream.range(0, 100)
				.mapToObj((n) -> ((n == 0) ? "done " : "") + "work-c-hundred-" + n)
				.toList());
		IntStream.range(0, 100).forEach((n) -> assertThat(this.instances.ledger().commitsOf("ceo/c-hundred/child-" + n))
			.hasSize(1));
		assertThat(completed.audit()).as("resumptions: it suspends on the last child missing").isNotEmpty()
			.hasSizeLessThanOrEqualTo(3);
	}

	@Test
	void aDeadLetteredChildFailsItsParentsAwaitWithItsKeyAndReason() throws Exception {
		Instance instance = this.instances.start("a", "test.children.count=2", "test.children.failing=1",
				"test.children.await=each");
		publish(instance, "c-failed");

		IdempotencyRecord completed = awaitParent(instance, "c-failed", RecordState.COMPLETED);
		assertThat(completed.resultSummary())
			.isEqualTo("failed ceo/c-failed/child-1 (dead-lettered): handler failed with a non-retryable exception "
					+ "(java.lang.IllegalArgumentException)");
		assertThat(this.instances.ledger().commitsOf("ceo/c-failed/child-0")).hasSize(1);
		assertThat(this.instances.ledger().commitsOf("ceo/c-failed/child-1")).isEmpty();
	}

	@Test
	void aChildReplayedAfterItsFixCompletesForItsStillWaitingParent() throws Exception {
		Instance instance = this.instances.start("a", "test.children.count=2", "test.children.failing=1",
				"test.children.held=0");
		publish(instance, "c-replayed");
		awaitRecord(instance, "crew:ceo/c-replayed/child-1", RecordState.DEAD_LETTERED);
		awaitParent(instance, "c-replayed", RecordState.WAITING);

		instance.bean(CrewTaskHandler.class).fix(1);
		DeadLetterOperations deadLetters = instance.bean(DeadLetterOperations.class);
		DeadLetterView letter = deadLetters.list("crew", 1, 10).get(0);
		deadLetters.replay("crew", letter.sequence(), "ops", "fixed");
		awaitRecord(instance, "crew:ceo/c-replayed/child-1", RecordState.COMPLETED);
		assertThat(instance.bean(IdempotencyStore.class).find("ceo:c-replayed").orElseThrow().state())
			.as("the parent still waits for child 0").isEqualTo(RecordState.WAITING);
		assertThat(go(instance, "ceo/c-replayed/child-0")).isEqualTo(SignalOutcome.RESUMED);

		IdempotencyRecord completed = awaitParent(instance, "c-replayed", RecordState.COMPLETED);
		assertThat(completed.resultSummary()).as("the replay's result won over its dead letter's notice")
			.isEqualTo("done work-c-replayed-0,work-c-replayed-1");
	}

	@Test
	void aDiscardedChildFailsItsParentForGood() throws Exception {
		Instance instance = this.instances.start("a", "test.children.count=2", "test.children.failing=1",
				"test.children.held=0");
		publish(instance, "c-discarded");
		awaitRecord(instance, "crew:ceo/c-discarded/child-1", RecordState.DEAD_LETTERED);
		awaitParent(instance, "c-discarded", RecordState.WAITING);

		DeadLetterOperations deadLetters = instance.bean(DeadLetterOperations.class);
		deadLetters.discard("crew", deadLetters.list("crew", 1, 10).get(0).sequence(), "ops", "not worth it");
		assertThat(go(instance, "ceo/c-discarded/child-0")).isEqualTo(SignalOutcome.RESUMED);

		IdempotencyRecord completed = awaitParent(instance, "c-discarded", RecordState.COMPLETED);
		assertThat(completed.resultSummary()).isEqualTo("failed ceo/c-discarded/child-1 (discarded): not worth it");
		assertThat(completed.journal().find("crew")).as("a discard is final: the wait is journaled done").get()
			.extracting(StepRecord::state).isEqualTo(StepState.DONE);
	}

	@Test
	void aTimeoutEndsTheWaitAndLeavesTheChildRunningItsLateResultIgnored() throws Exception {
		Instance instance = this.instances.start("a", "test.children.count=2", "test.children.held=1",
				"test.children.timeout=2s");
		publish(instance, "c-late");

		IdempotencyRecord completed = awaitParent(instance, "c-late", RecordState.COMPLETED);
		assertThat(completed.resultSummary()).isEqualTo("timed out [ceo/c-late/child-1]");
		assertThat(go(instance, "ceo/c-late/child-1")).as("the child still runs").isEqualTo(SignalOutcome.RESUMED);
		awaitRecord(instance, "crew:ceo/c-late/child-1", RecordState.COMPLETED);
		assertThat(this.instances.ledger().commitsOf("ceo/c-late/child-1")).hasSize(1);
		assertThat(instance.bean(IdempotencyStore.class).find("ceo:c-late").orElseThrow().resultSummary())
			.isEqualTo("timed out [ceo/c-late/child-1]");
	}

	@Test
	void aResubmittedParentStartsNewChildren() throws Exception {
		Instance instance = this.instances.start("a", "test.children.count=1");
		publish(instance, "c-again");
		assertThat(awaitParent(instance, "c-again", RecordState.COMPLETED).resultSummary())
			.isEqualTo("done work-c-again-0");

		instance.bean(ExactlyOncePublisher.class)
			.resubmit("ceo", "c-again", SUBJECT, TaskAssignment.of("c-again"), "ops", "run it again");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> instance.bean(IdempotencyStore.class).find("ceo:c-again").orElseThrow(),
					(record) -> record.run() == 2 && record.state() == RecordState.COMPLETED);
		assertThat(this.instances.ledger().commitsOf("ceo/c-again/child-0")).hasSize(1);
		assertThat(this.instances.ledger().commitsOf("ceo/c-again/run-2/child-0")).as("run 2's child").hasSize(1);
	}

	@Test
	void aResubmittedParentStartsNewChildrenAlsoUnderKeysOfItsOwn() throws Exception {
		Instance instance = this.instances.start("a", "test.children.count=1", "test.children.own-keys=true");
		publish(instance, "c-own");
		assertThat(awaitParent(instance, "c-own", RecordState.COMPLETED).resultSummary()).isEqualTo("done work-c-own-0");

		instance.bean(ExactlyOncePublisher.class)
			.resubmit("ceo", "c-own", SUBJECT, TaskAssignment.of("c-own"), "ops", "run it again");
		IdempotencyRecord again = await().atMost(Duration.ofSeconds(30))
			.until(() -> instance.bean(IdempotencyStore.class).find("ceo:c-own").orElseThrow(),
					(record) -> record.run() == 2 && record.state() == RecordState.COMPLETED);
		assertThat(again.resultSummary()).as("run 2 got its own child's result, not a wait until its timeout")
			.isEqualTo("done work-c-own-0");
		assertThat(this.instances.ledger().commitsOf("c-own-own-0")).hasSize(1);
		assertThat(this.instances.ledger().commitsOf("c-own-own-0/run-2")).as("run 2's child").hasSize(1);
	}

	@Test
	void aParentAndItsChildrenRunOnTwoInstances() throws Exception {
		Instance parents = this.instances.start("a", "test.children.child=false");
		Instance children = this.instances.start("b", "test.children.parent=false");
		publish(parents, "c-two");

		IdempotencyRecord completed = awaitParent(parents, "c-two", RecordState.COMPLETED);
		assertThat(completed.resultSummary()).isEqualTo("done work-c-two-0,work-c-two-1,work-c-two-2");
		assertThat(children.bean(IdempotencyStore.class).find("crew:ceo/c-two/child-0")).get()
			.extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
	}

	protected void publish(Instance instance, String taskId) {
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of(taskId), taskId);
	}

	/** Lets a held child go on. */
	protected SignalOutcome go(Instance instance, String childKey) {
		return instance.bean(ExactlyOnceSignals.class).signal("crew", childKey, "go", "go", "go-" + childKey);
	}

	protected ChildTask childTask(Instance instance, StepRecord step) {
		return JsonMapper.builder().build().readValue(step.result(), ChildTask.class);
	}

	protected IdempotencyRecord awaitParent(Instance instance, String taskId, RecordState state) {
		return awaitRecord(instance, "ceo:" + taskId, state);
	}

	protected IdempotencyRecord awaitRecord(Instance instance, String storeKey, RecordState state) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		return await().atMost(Duration.ofSeconds(30))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find(storeKey).orElse(null), (record) -> record != null && record.state() == state);
	}

}

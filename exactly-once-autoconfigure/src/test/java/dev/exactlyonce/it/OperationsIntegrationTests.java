package dev.exactlyonce.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.nats.client.Connection;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.audit.ConsumerReconciliation;
import dev.exactlyonce.audit.Reconciliations;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.listener.KeyResolver;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.DeadLetterView;
import dev.exactlyonce.operations.KeyReopener;
import dev.exactlyonce.operations.OperationOutcome;
import dev.exactlyonce.operations.OperationRefusedException;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskPage;
import dev.exactlyonce.operations.TaskResubmitter;
import dev.exactlyonce.operations.TaskStatus;
import dev.exactlyonce.operations.TaskView;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishResult;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.StoreKeyEncoder;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * An operator's tools against a real nats-server and the NATS KV store: dead letters are listed
 * (payloads only when allowed), replayed once however often and from however many instances they
 * are replayed, discarded with an audit; completed tasks are resubmitted once more and only once;
 * tasks are read by key and listed by state, a page at a time.
 */
class OperationsIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.listener.non-retryable-exceptions", IllegalArgumentException.class.getName())
			.with("test.failure", "illegal-argument")
			.with("test.always-failing", "t-poison");
	}

	@Test
	void replayAfterTheFixRunsTheTaskOnceEvenReplayedTwiceConcurrentlyFromTwoInstances() throws Exception {
		Instance a = this.instances.start("a");
		Instance b = this.instances.start("b");
		a.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-poison"), "t-poison");
		DeadLetterView letter = awaitOneDeadLetter(a);
		assertThat(letter.key()).isEqualTo("t-poison");
		assertThat(letter.originalSubject()).isEqualTo(SUBJECT);
		assertThat(letter.stream()).isEqualTo("TASKS");
		assertThat(letter.exception()).isEqualTo(IllegalArgumentException.class.getName());
		assertThat(letter.deliveries()).isEqualTo(1);
		assertThat(letter.payload()).as("payloads are hidden by default").isNull();
		assertThat(task(a, "t-poison").status()).isEqualTo(TaskStatus.DEAD_LETTERED);
		this.instances.ledger().fix("t-poison");

		List<OperationOutcome> outcomes = concurrently(
				() -> a.bean(DeadLetterOperations.class).replay("worker", letter.sequence(), "alice", "parser fixed"),
				() -> b.bean(DeadLetterOperations.class).replay("worker", letter.sequence(), "bob", "parser fixed"));

		assertThat(outcomes).extracting(OperationOutcome::messageId)
			.containsOnly("t-poison/replay-DEAD_LETTERS-" + letter.sequence());
		await().atMost(WAIT).until(() -> task(a, "t-poison").status() == TaskStatus.COMPLETED);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(WAIT).until(() -> probe.drained("TASKS", "worker"));
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker")).isEmpty();
		}
		assertThat(this.instances.ledger().executionsOf("t-poison")).isEqualTo(1);
		TaskView replayed = task(b, "t-poison");
		assertThat(replayed.audit()).singleElement().satisfies((action) -> {
			assertThat(action.kind()).isEqualTo(OperatorAction.Kind.REPLAY);
			assertThat(action.number()).isEqualTo(1);
			assertThat(action.operator()).isIn("alice", "bob");
			assertThat(action.reason()).isEqualTo("parser fixed");
			assertThat(action.deadLetterSequence()).isEqualTo(letter.sequence());
		});
		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> a.bean(DeadLetterOperations.class).replay("worker", letter.sequence(), "alice", "again"))
			.withMessageContaining("No dead letter of consumer 'worker' at sequence " + letter.sequence());
	}

	@Test
	void aDiscardThatLosesTheRaceToAReplayIsRefusedAndKeepsTheDeadLetter() throws Exception {
		Instance a = this.instances.start("a");
		Instance b = this.instances.start("b");
		DeadLetterView letter = deadLetterOfThePoisonTask(a);
		// b's replay has recorded itself on the task's record and not yet republished or removed the letter
		b.bean(KeyReopener.class).reopen("worker", "t-poison", OperatorAction.Kind.REPLAY, letter.sequence(), "bob",
				"parser fixed");

		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> a.bean(DeadLetterOperations.class).discard("worker", letter.sequence(), "alice",
					"customer cancelled"))
			.withMessageContaining("was replayed by bob")
			.withMessageContaining("not discarded");
		assertThat(a.bean(DeadLetterOperations.class).list("worker", 1, 10)).as("the dead letter is kept").hasSize(1);
		assertThat(task(a, "t-poison").audit()).extracting(OperatorAction::kind).containsExactly(OperatorAction.Kind.REPLAY);
	}

	@Test
	void aReplayThatLosesTheRaceToADiscardIsRefusedAndTheTaskNeverRuns() throws Exception {
		Instance a = this.instances.start("a");
		Instance b = this.instances.start("b");
		DeadLetterView letter = deadLetterOfThePoisonTask(a);
		this.instances.ledger().fix("t-poison");

		assertAReplayAfterBobsDiscardIsRefused(a, b, letter);
	}

	@Test
	void twoDeadLettersOfOneKeyAreReplayedUnderIdsOfTheirOwn() throws Exception {
		Instance a = this.instances.start("a");
		DeadLetterView first = deadLetterOfThePoisonTask(a);
		OperationOutcome firstReplay = a.bean(DeadLetterOperations.class).replay("worker", first.sequence(), "alice",
				"try again");
		DeadLetterView second = awaitOneDeadLetter(a);
		this.instances.ledger().fix("t-poison");

		OperationOutcome secondReplay = a.bean(DeadLetterOperations.class).replay("worker", second.sequence(), "alice",
				"parser fixed");

		assertThat(second.sequence()).isNotEqualTo(first.sequence());
		assertThat(secondReplay.messageId()).isNotEqualTo(firstReplay.messageId())
			.isEqualTo("t-poison/replay-DEAD_LETTERS-" + second.sequence());
		assertThat(secondReplay.duplicate()).isFalse();
		await().atMost(WAIT).until(() -> task(a, "t-poison").status() == TaskStatus.COMPLETED);
		assertThat(this.instances.ledger().executionsOf("t-poison")).isEqualTo(1);
	}

	@Test
	void aDeadLetterOfAnotherConsumerSharingItsDeadLetterSubjectIsNeitherReplayedNorDiscardedUnderThisOne()
			throws Exception {
		Instance a = this.instances.start("a", "test.steps.enabled=true", "exactlyonce.consumers.steps.stream=TASKS",
				"exactlyonce.consumers.steps.filter-subject=agents.steps.tasks.>",
				"exactlyonce.consumers.worker.dead-letter-subject=deadletter.shared",
				"exactlyonce.consumers.steps.dead-letter-subject=deadletter.shared");
		a.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-poison"), "t-poison");
		DeadLetterView letter = awaitOneDeadLetter(a);
		this.instances.ledger().fix("t-poison");
		DeadLetterOperations deadLetters = a.bean(DeadLetterOperations.class);

		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> deadLetters.replay("steps", letter.sequence(), "alice", "wrong consumer"))
			.withMessageContaining("consumer 'worker'");
		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> deadLetters.discard("steps", letter.sequence(), "alice", "wrong consumer"))
			.withMessageContaining("consumer 'worker'");
		deadLetters.replay("worker", letter.sequence(), "alice", "parser fixed");

		await().atMost(WAIT).until(() -> this.instances.ledger().executionsOf("t-poison") == 1
				&& task(a, "t-poison").status() == TaskStatus.COMPLETED);
	}

	@Test
	void discardRemovesTheDeadLetterAndKeepsWhoAndWhyOnTheRecord() throws Exception {
		Instance a = this.instances.start("a", "exactlyonce.operations.show-payloads=true");
		a.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-poison"), "t-poison");
		DeadLetterView letter = awaitOneDeadLetter(a);
		assertThat(letter.payload()).contains("\"taskId\":\"t-poison\"");

		OperationOutcome discarded = a.bean(DeadLetterOperations.class)
			.discard("worker", letter.sequence(), "carol", "customer cancelled");

		assertThat(discarded.action()).isEqualTo(OperatorAction.Kind.DISCARD);
		assertThat(a.bean(DeadLetterOperations.class).list("worker", 1, 10)).isEmpty();
		TaskView task = task(a, "t-poison");
		assertThat(task.status()).isEqualTo(TaskStatus.DEAD_LETTERED);
		assertThat(task.audit()).extracting(OperatorAction::kind, OperatorAction::operator, OperatorAction::reason)
			.containsExactly(tuple(OperatorAction.Kind.DISCARD, "carol", "customer cancelled"));
		assertThat(this.instances.ledger().startedOf("t-poison")).isEqualTo(1);
	}

	@Test
	void resubmitOfACompletedTaskFromThePublisherRunsItOnceMoreAndOnlyOnce() throws Exception {
		Instance a = this.instances.start("a");
		ExactlyOncePublisher publisher = a.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-done"), "t-done");
		await().atMost(WAIT).ignoreExceptions().until(() -> task(a, "t-done").status() == TaskStatus.COMPLETED);
		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> a.bean(TaskResubmitter.class).resubmit("worker", "t-done", "ops", "wrong output"))
			.withMessageContaining("no longer on stream 'TASKS'")
			.withMessageContaining("ExactlyOncePublisher.resubmit");

		PublishResult resubmitted = publisher.resubmit("worker", "t-done", SUBJECT, TaskAssignment.of("t-done"),
				"billing-service", "wrong output");
		PublishResult again = publisher.publish(SUBJECT, TaskAssignment.of("t-done"), "t-done/resubmit-1");

		assertThat(resubmitted.duplicate()).isFalse();
		assertThat(again.duplicate()).isTrue();
		await().atMost(WAIT).until(() -> this.instances.ledger().executionsOf("t-done") == 2
				&& task(a, "t-done").status() == TaskStatus.COMPLETED);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(WAIT).until(() -> probe.drained("TASKS", "worker"));
		}
		assertThat(this.instances.ledger().executionsOf("t-done")).isEqualTo(2);
		assertThat(task(a, "t-done").audit()).extracting(OperatorAction::kind, OperatorAction::number,
				OperatorAction::operator).containsExactly(tuple(OperatorAction.Kind.RESUBMIT, 1, "billing-service"));
	}

	@Test
	void aResubmittedTaskLeavesTheBooksBalancedItsEarlierCopiesStillAccountedFor() throws Exception {
		Instance a = this.instances.start("a");
		ExactlyOncePublisher publisher = a.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-first"), "t-first");
		publisher.publish(SUBJECT, TaskAssignment.of("t-done"), "t-done");
		await().atMost(WAIT).ignoreExceptions().until(() -> task(a, "t-done").status() == TaskStatus.COMPLETED);
		publisher.publish(SUBJECT, TaskAssignment.of("t-done"), "t-done/copy",
				Map.of(KeyResolver.ORIGINAL_MESSAGE_ID_HEADER, "t-done"));
		await().atMost(WAIT).until(() -> a.recorder().outcomes().contains(DeliveryOutcome.DUPLICATE));

		publisher.resubmit("worker", "t-done", SUBJECT, TaskAssignment.of("t-done"), "billing-service", "wrong output");

		await().atMost(WAIT).until(() -> this.instances.ledger().executionsOf("t-done") == 2
				&& task(a, "t-done").status() == TaskStatus.COMPLETED);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(WAIT).until(() -> probe.drained("TASKS", "worker"));
		}
		Instance auditor = this.instances.start("auditor");
		ConsumerReconciliation worker = auditor.bean(Reconciliations.class).run(Duration.ofHours(1)).consumers().get(0);
		assertThat(worker.discrepancies()).isEmpty();
		assertThat(worker.published()).isEqualTo(4);
		assertThat(worker.balanced()).isTrue();
	}

	@Test
	void resubmitFromALimitsStreamRepublishesTheStoredMessage() throws Exception {
		Instance a = this.instances.start("a", "exactlyonce.streams.TASKS.retention=limits");
		a.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-kept"), "t-kept");
		await().atMost(WAIT).ignoreExceptions().until(() -> task(a, "t-kept").status() == TaskStatus.COMPLETED);

		OperationOutcome outcome = a.bean(TaskResubmitter.class).resubmit("worker", "t-kept", "dave", "model upgraded");

		assertThat(outcome.messageId()).isEqualTo("t-kept/resubmit-1");
		await().atMost(WAIT).until(() -> this.instances.ledger().executionsOf("t-kept") == 2
				&& task(a, "t-kept").status() == TaskStatus.COMPLETED);
		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> a.bean(DeadLetterOperations.class).replay("worker", 999, "dave", "no such"))
			.withMessageContaining("No dead letter of consumer 'worker' at sequence 999");
	}

	@Test
	void tasksAreReadByKeyAndListedByStateAPageAtATime() throws Exception {
		Instance a = this.instances.start("a");
		ExactlyOncePublisher publisher = a.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1");
		publisher.publish(SUBJECT, TaskAssignment.of("t-2"), "t-2");
		publisher.publish(SUBJECT, TaskAssignment.of("t-poison"), "t-poison");
		TaskInspector inspector = a.bean(TaskInspector.class);
		await().atMost(WAIT).until(() -> inspector.tasks("worker", TaskStatus.COMPLETED, 0, 10).total() == 2
				&& inspector.tasks("worker", TaskStatus.DEAD_LETTERED, 0, 10).total() == 1);

		TaskPage first = inspector.tasks("worker", TaskStatus.COMPLETED, 0, 1);
		TaskPage second = inspector.tasks("worker", TaskStatus.COMPLETED, 1, 1);

		assertThat(first.supported()).isTrue();
		assertThat(first.total()).isEqualTo(2);
		assertThat(List.of(first.tasks().get(0).key(), second.tasks().get(0).key())).containsExactlyInAnyOrder("t-1",
				"t-2");
		assertThat(inspector.tasks("worker", TaskStatus.IN_PROGRESS, 0, 10).tasks()).isEmpty();
		TaskView done = inspector.task("worker", "t-1").orElseThrow();
		assertThat(done.streamSequence()).isPositive();
		assertThat(done.resultSummary()).isEqualTo("post for t-1");
		assertThat(done.attempts()).isEqualTo(1);
		assertThat(inspector.task("worker", "never-published")).isEmpty();
		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> inspector.tasks("no-such-consumer", TaskStatus.FAILED, 0, 10))
			.withMessageContaining("No consumer 'no-such-consumer' is declared");
	}

	/**
	 * Records bob's discard of the dead letter on b (what a discard does first), then asserts that
	 * alice's replay on a is refused, naming it, and that the task stays dead-lettered and never runs.
	 */
	private void assertAReplayAfterBobsDiscardIsRefused(Instance a, Instance b, DeadLetterView letter)
			throws Exception {
		b.bean(KeyReopener.class).reopen("worker", "t-poison", OperatorAction.Kind.DISCARD, letter.sequence(), "bob",
				"customer cancelled");

		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> a.bean(DeadLetterOperations.class).replay("worker", letter.sequence(), "alice",
					"parser fixed"))
			.withMessageContaining("was discarded by bob")
			.withMessageContaining("not replayed");
		assertThat(task(a, "t-poison").status()).isEqualTo(TaskStatus.DEAD_LETTERED);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.messages("TASKS", SUBJECT)).as("no copy republished").isEmpty();
		}
		assertThat(this.instances.ledger().executionsOf("t-poison")).isZero();
	}

	/** Publishes the task that always fails and returns its dead letter. */
	private DeadLetterView deadLetterOfThePoisonTask(Instance instance) {
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-poison"), "t-poison");
		return awaitOneDeadLetter(instance);
	}

	@Test
	void aReplayAndADiscardOfADeadLetterWhoseRecordExpiredAreStillDecidedByOneRecord() throws Exception {
		Instance a = this.instances.start("a");
		Instance b = this.instances.start("b");
		DeadLetterView letter = deadLetterOfThePoisonTask(a);
		this.instances.ledger().fix("t-poison");
		a.bean(Connection.class).keyValue("exactly-once-idempotency")
			.delete(new StoreKeyEncoder(512).encode("worker:t-poison"));
		assertThat(a.bean(TaskInspector.class).task("worker", "t-poison")).as("the record is gone").isEmpty();

		assertAReplayAfterBobsDiscardIsRefused(a, b, letter);
		assertThat(task(a, "t-poison").audit()).extracting(OperatorAction::kind)
			.containsExactly(OperatorAction.Kind.DISCARD);
	}

	@Test
	void aBodyThatIsNotJsonIsDeadLetteredWithItsMessageIdAsKeySoItCanBeReplayed() throws Exception {
		Instance a = this.instances.start("a");
		a.bean(ExactlyOncePublisher.class).publish(SUBJECT, "not json", "poison-1");
		DeadLetterView letter = awaitOneDeadLetter(a);
		assertThat(letter.key()).isEqualTo("poison-1");
		assertThat(letter.reason()).contains("cannot be read as");

		OperationOutcome replayed = a.bean(DeadLetterOperations.class)
			.replay("worker", letter.sequence(), "alice", "listener now takes text");

		assertThat(replayed.messageId()).isEqualTo("poison-1/replay-DEAD_LETTERS-" + letter.sequence());
		DeadLetterOperations deadLetters = a.bean(DeadLetterOperations.class);
		await().atMost(WAIT).until(() -> deadLetters.list("worker", 1, 10).stream()
			.anyMatch((again) -> again.sequence() != letter.sequence()));
		assertThat(deadLetters.list("worker", 1, 10)).singleElement()
			.satisfies((again) -> assertThat(again.key()).isEqualTo("poison-1"));
		assertThat(this.instances.ledger().started()).isEmpty();
	}

	@Test
	void everyDeadLetterOfAReplayedPoisonMessageCanBeReplayedAndDiscarded() throws Exception {
		Instance a = this.instances.start("a");
		DeadLetterOperations deadLetters = a.bean(DeadLetterOperations.class);
		a.bean(ExactlyOncePublisher.class).publish(SUBJECT, "not json", "poison-1");
		DeadLetterView first = awaitOneDeadLetter(a);
		deadLetters.replay("worker", first.sequence(), "alice", "listener now takes text");
		DeadLetterView second = awaitAnotherDeadLetter(a, first);
		await("the replayed copy is parked like the first").atMost(WAIT)
			.until(() -> task(a, "poison-1").status() == TaskStatus.DEAD_LETTERED);

		deadLetters.replay("worker", second.sequence(), "bob", "second try");
		DeadLetterView third = awaitAnotherDeadLetter(a, second);
		await().atMost(WAIT).until(() -> task(a, "poison-1").status() == TaskStatus.DEAD_LETTERED);
		OperationOutcome discarded = deadLetters.discard("worker", third.sequence(), "carol", "it is not a task");

		assertThat(discarded.action()).isEqualTo(OperatorAction.Kind.DISCARD);
		assertThat(deadLetters.list("worker", 1, 10)).isEmpty();
		TaskView task = task(a, "poison-1");
		assertThat(task.status()).isEqualTo(TaskStatus.DEAD_LETTERED);
		assertThat(task.audit()).extracting(OperatorAction::kind, OperatorAction::operator)
			.containsExactly(tuple(OperatorAction.Kind.REPLAY, "alice"), tuple(OperatorAction.Kind.REPLAY, "bob"),
					tuple(OperatorAction.Kind.DISCARD, "carol"));
		assertThat(this.instances.ledger().started()).isEmpty();
	}

	@Test
	void aRefusedDiscardSaysTheTasksRealStateOwnerAndLastOutcome() throws Exception {
		Instance a = this.instances.start("a");
		DeadLetterView letter = deadLetterOfThePoisonTask(a);
		// bob's replay has recorded itself on the task's record and not yet republished or removed the letter
		a.bean(KeyReopener.class).reopen("worker", "t-poison", OperatorAction.Kind.REPLAY, letter.sequence(), "bob",
				"parser fixed");

		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> a.bean(DeadLetterOperations.class).discard("worker", letter.sequence(), "alice", "done"))
			.withMessageContaining("was replayed by bob")
			.withMessageContaining("the task is FAILED (owner a#")
			.withMessageContaining("0 attempt(s), last outcome: 'REPLAY 1 by bob: parser fixed'");
	}

	@Test
	void aSecondResubmitBeforeTheFirstCopyRanIsRefusedSoEachAnsweredResubmitRunsTheTaskOnce() throws Exception {
		Instance a = this.instances.start("a", "exactlyonce.streams.TASKS.retention=limits");
		a.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-kept"), "t-kept");
		await().atMost(WAIT).ignoreExceptions().until(() -> task(a, "t-kept").status() == TaskStatus.COMPLETED);
		a.bean(ExactlyOnceListenerRegistry.class).stop();
		TaskResubmitter resubmitter = a.bean(TaskResubmitter.class);

		OperationOutcome first = resubmitter.resubmit("worker", "t-kept", "alice", "model upgraded");

		assertThat(first.messageId()).isEqualTo("t-kept/resubmit-1");
		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> resubmitter.resubmit("worker", "t-kept", "bob", "model upgraded again"))
			.withMessageContaining("was resubmitted by alice")
			.withMessageContaining("'t-kept/resubmit-1'")
			.withMessageContaining("has not run yet");
		this.instances.start("b", "exactlyonce.streams.TASKS.retention=limits");
		await().atMost(WAIT).until(() -> this.instances.ledger().executionsOf("t-kept") == 2
				&& task(a, "t-kept").status() == TaskStatus.COMPLETED);
		assertThat(resubmitter.resubmit("worker", "t-kept", "bob", "model upgraded again").messageId())
			.isEqualTo("t-kept/resubmit-2");
		await().atMost(WAIT).until(() -> this.instances.ledger().executionsOf("t-kept") == 3
				&& task(a, "t-kept").status() == TaskStatus.COMPLETED);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(WAIT).until(() -> probe.drained("TASKS", "worker"));
		}
		assertThat(this.instances.ledger().executionsOf("t-kept")).isEqualTo(3);
		assertThat(task(a, "t-kept").audit()).extracting(OperatorAction::kind, OperatorAction::operator)
			.containsExactly(tuple(OperatorAction.Kind.RESUBMIT, "alice"), tuple(OperatorAction.Kind.RESUBMIT, "bob"));
	}

	@Test
	void aPublisherResubmitAskedAgainBeforeItsCopyRanPublishesTheSameCopyAndAnotherOperatorsIsRefused()
			throws Exception {
		Instance a = this.instances.start("a");
		ExactlyOncePublisher publisher = a.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-done"), "t-done");
		await().atMost(WAIT).ignoreExceptions().until(() -> task(a, "t-done").status() == TaskStatus.COMPLETED);
		a.bean(ExactlyOnceListenerRegistry.class).stop();

		PublishResult first = publisher.resubmit("worker", "t-done", SUBJECT, TaskAssignment.of("t-done"),
				"billing-service", "wrong output");
		PublishResult again = publisher.resubmit("worker", "t-done", SUBJECT, TaskAssignment.of("t-done"),
				"billing-service", "wrong output");

		assertThat(first.duplicate()).isFalse();
		assertThat(again.duplicate()).as("the same copy, stored by the first call").isTrue();
		assertThatExceptionOfType(OperationRefusedException.class)
			.isThrownBy(() -> publisher.resubmit("worker", "t-done", SUBJECT, TaskAssignment.of("t-done"), "alice",
					"again"))
			.withMessageContaining("RESUBMIT 1 by billing-service at ")
			.withMessageContaining("has not run yet");
		this.instances.start("b");
		await().atMost(WAIT).until(() -> this.instances.ledger().executionsOf("t-done") == 2
				&& task(a, "t-done").status() == TaskStatus.COMPLETED);
		assertThat(task(a, "t-done").audit()).extracting(OperatorAction::kind, OperatorAction::operator)
			.containsExactly(tuple(OperatorAction.Kind.RESUBMIT, "billing-service"));
	}

	private DeadLetterView awaitAnotherDeadLetter(Instance instance, DeadLetterView before) {
		DeadLetterOperations deadLetters = instance.bean(DeadLetterOperations.class);
		await().atMost(WAIT).until(() -> deadLetters.list("worker", 1, 10).stream()
			.anyMatch((letter) -> letter.sequence() > before.sequence()));
		return deadLetters.list("worker", 1, 10).stream()
			.filter((letter) -> letter.sequence() > before.sequence())
			.findFirst()
			.orElseThrow();
	}

	private DeadLetterView awaitOneDeadLetter(Instance instance) {
		DeadLetterOperations deadLetters = instance.bean(DeadLetterOperations.class);
		await().atMost(WAIT).until(() -> deadLetters.list("worker", 1, 10).size() == 1);
		return deadLetters.list("worker", 1, 10).get(0);
	}

	private static TaskView task(Instance instance, String key) {
		return instance.bean(TaskInspector.class).task("worker", key).orElseThrow();
	}

	@SafeVarargs
	private static <T> List<T> concurrently(Callable<T>... calls) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(calls.length);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<T>> futures = Arrays.stream(calls).map((call) -> executor.submit(() -> {
				start.await();
				return call.call();
			})).toList();
			start.countDown();
			List<T> results = new ArrayList<>();
			for (Future<T> future : futures) {
				results.add(future.get());
			}
			return results;
		}
		finally {
			executor.shutdownNow();
		}
	}

}

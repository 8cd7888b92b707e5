package dev.exactlyonce.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.testapp.ApprovalTaskHandler;
import dev.exactlyonce.testapp.ApprovalTaskHandler.Approval;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A task that waits durably holds no worker, ack slot or lease while it waits, and resumes once,
 * from the top, with what ended its wait: a signal (sent before or after it reached the wait), its
 * timeout, or the end of a sleep, also when no instance ran at the time.
 */
@ExtendWith(OutputCaptureExtension.class)
class DurableWaitsIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.approvals.tasks.post";

	@Override
	protected void configure(TestInstances instances) {
		instances.with("test.waits.enabled", "true")
			.with("exactlyonce.consumers.approvals.stream", "TASKS")
			.with("exactlyonce.consumers.approvals.filter-subject", "agents.approvals.tasks.>")
			.with("exactlyonce.consumers.approvals.ack-wait", "5s")
			.with("exactlyonce.consumers.approvals.max-ack-pending", "2")
			.with("exactlyonce.store.lease", "3s");
	}

	@Test
	void aSignalResumesAWaitingTaskThatHeldNoMessageWhileItWaited() throws Exception {
		Instance instance = this.instances.start("a");
		publish(instance, "t-approved");
		IdempotencyRecord waiting = awaitState(instance, "t-approved", RecordState.WAITING);

		assertThat(waiting.resultSummary()).startsWith("signal 'approval' until ");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.drained("TASKS", "approvals")).as("nothing pending or unacked while it waits").isTrue();
		}
		assertThat(signal(instance, "t-approved", new Approval(true, "alice"), "s-1")).isEqualTo(SignalOutcome.RESUMED);

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-approved") != null);
		assertThat(handler.result("t-approved")).startsWith("committed ").endsWith("approved by alice");
		assertThat(handler.runs("draft")).as("model calls").isEqualTo(1);
		assertThat(handler.sawPreviousAttempt("t-approved")).as("a resumed task was not retried").isFalse();
		assertThat(this.instances.ledger().commitsOf("t-approved")).hasSize(1);
		IdempotencyRecord completed = awaitState(instance, "t-approved", RecordState.COMPLETED);
		assertThat(completed.audit()).extracting(OperatorAction::kind).containsExactly(OperatorAction.Kind.RESUME);
		assertThat(completed.audit().get(0).operator()).isEqualTo(ExactlyOnceSignals.APPLICATION);
		assertThat(completed.journal().find("approval")).get().extracting(StepRecord::state).isEqualTo(StepState.DONE);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.SUSPENDED, DeliveryOutcome.PROCESSED);
		assertThat(signal(instance, "t-approved", new Approval(true, "bob"), "s-2")).isEqualTo(SignalOutcome.TOO_LATE);
	}

	@Test
	void aSignalSentBeforeTheTaskReachesItsWaitIsKeptForIt() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.nap=3s");
		publish(instance, "t-early");
		awaitState(instance, "t-early", RecordState.WAITING);

		assertThat(signal(instance, "t-early", new Approval(false, "carol"), "s-early"))
			.as("the task sleeps before its wait for approval").isEqualTo(SignalOutcome.BUFFERED);

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-early") != null);
		assertThat(handler.result("t-early")).isEqualTo("rejected by carol");
		assertThat(this.instances.ledger().commitsOf("t-early")).isEmpty();
		// the handler's result is kept before its completion is recorded and its delivery settled
		await().atMost(Duration.ofSeconds(30)).until(() -> instance.recorder().outcomes().size() == 2);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.SUSPENDED, DeliveryOutcome.PROCESSED);
		assertThat(signal(instance, "t-early", new Approval(false, "carol"), "s-early"))
			.as("the signal that ended the wait, sent again after the task finished").isEqualTo(SignalOutcome.DUPLICATE);
		assertThat(signal(instance, "t-early", new Approval(false, "carol"), "s-late")).isEqualTo(SignalOutcome.TOO_LATE);
	}

	@Test
	void aWaitWithoutItsSignalTimesOutOnceAndALateSignalIsTooLate() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.timeout=2s");
		publish(instance, "t-timeout");

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-timeout") != null);
		assertThat(handler.result("t-timeout")).isEqualTo("timed-out");
		assertThat(signal(instance, "t-timeout", new Approval(true, "late"), "s-late")).isEqualTo(SignalOutcome.TOO_LATE);
		assertThat(awaitState(instance, "t-timeout", RecordState.COMPLETED).audit()).singleElement()
			.satisfies((action) -> assertThat(action.reason()).isEqualTo("wait for signal 'approval' timed out"));
	}

	@Test
	void aSignalRacingItsTimeoutEndsTheWaitOnceAndItsSenderIsToldWhich() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.timeout=1500ms");
		List<String> keys = new ArrayList<>();
		List<SignalOutcome> answers = new ArrayList<>();
		for (int round = 0; round < 8; round++) {
			String key = "t-race-" + round;
			keys.add(key);
			publish(instance, key);
			awaitState(instance, key, RecordState.WAITING);
			Thread.sleep(1300 + 50 * round);
			answers.add(signal(instance, key, new Approval(true, "racer"), "s-" + round));
		}
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		for (int round = 0; round < keys.size(); round++) {
			String key = keys.get(round);
			await().atMost(Duration.ofSeconds(30)).until(() -> handler.result(key) != null);
			SignalOutcome answer = answers.get(round);
			assertThat(answer).isIn(SignalOutcome.RESUMED, SignalOutcome.TOO_LATE);
			assertThat(handler.result(key)).as("round " + round + ", signal answered " + answer)
				.isEqualTo((answer == SignalOutcome.RESUMED) ? "committed " + this.instances.ledger().commitsOf(key).get(0)
						+ " approved by racer" : "timed-out");
			assertThat(this.instances.ledger().commitsOf(key)).hasSize((answer == SignalOutcome.RESUMED) ? 1 : 0);
		}
	}

	@Test
	void aSignalSentTwiceWithOneIdIsADuplicateAndUnknownTasksAreNamed() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.nap=2s");
		publish(instance, "t-twice");
		awaitState(instance, "t-twice", RecordState.WAITING);

		assertThat(signal(instance, "t-twice", new Approval(true, "dave"), "s-same")).isEqualTo(SignalOutcome.BUFFERED);
		assertThat(signal(instance, "t-twice", new Approval(true, "dave"), "s-same")).isEqualTo(SignalOutcome.DUPLICATE);
		assertThat(signal(instance, "t-twice", new Approval(false, "eve"), "s-other")).isEqualTo(SignalOutcome.TOO_LATE);
		assertThat(signal(instance, "t-never-published", new Approval(true, "x"), "s-x"))
			.isEqualTo(SignalOutcome.NO_SUCH_TASK);

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-twice") != null);
		assertThat(handler.result("t-twice")).endsWith("approved by dave");
	}

	@Test
	void aSleepWhoseTimePassedWhileNoInstanceRanWakesWhenOneStarts() throws Exception {
		Instance first = this.instances.start("a", "test.waits.nap=2s");
		publish(first, "t-asleep");
		awaitState(first, "t-asleep", RecordState.WAITING);
		ApprovalTaskHandler firstHandler = first.bean(ApprovalTaskHandler.class);
		first.context().close();
		Thread.sleep(3000);

		Instance second = this.instances.start("b", "test.waits.nap=2s");
		assertThat(signal(second, "t-asleep", new Approval(true, "frank"), "s-asleep")).isIn(SignalOutcome.BUFFERED,
				SignalOutcome.RESUMED);
		ApprovalTaskHandler handler = second.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-asleep") != null);
		assertThat(handler.result("t-asleep")).endsWith("approved by frank");
		assertThat(this.instances.ledger().commitsOf("t-asleep")).hasSize(1);
		assertThat(firstHandler.runs("draft") + handler.runs("draft")).as("model calls").isEqualTo(1);
	}

	@Test
	void aWaitNameUsedTwiceInOneRunIsRefusedAndDeadLettered() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.approval-twice=true");
		publish(instance, "t-twice-named");
		awaitState(instance, "t-twice-named", RecordState.WAITING);
		assertThat(signal(instance, "t-twice-named", new Approval(true, "g"), "s-g")).isEqualTo(SignalOutcome.RESUMED);

		awaitState(instance, "t-twice-named", RecordState.DEAD_LETTERED);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.SUSPENDED,
				DeliveryOutcome.DEAD_LETTERED);
	}

	@Test
	void aSignalSentAgainWithItsIdAfterItsTaskTookItAndFinishedIsADuplicate() throws Exception {
		Instance instance = this.instances.start("a");
		publish(instance, "t-resent");
		awaitState(instance, "t-resent", RecordState.WAITING);
		assertThat(signal(instance, "t-resent", new Approval(true, "hank"), "s-resent")).isEqualTo(SignalOutcome.RESUMED);
		awaitState(instance, "t-resent", RecordState.COMPLETED);

		assertThat(signal(instance, "t-resent", new Approval(true, "hank"), "s-resent"))
			.as("sent again (its first sending failed after storing it): the task took it").isEqualTo(SignalOutcome.DUPLICATE);
		assertThat(signal(instance, "t-resent", new Approval(true, "ivy"), "s-other")).isEqualTo(SignalOutcome.TOO_LATE);
	}

	@Test
	void aSignalThatResumesAWaitInsideAStepIsTakenOrTheWaitIsRefusedBeforeItSuspends() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.in-step=true",
				"exactlyonce.consumers.approvals.on-abandoned=dead-letter");
		publish(instance, "t-in-step");
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> store.find("approvals:t-in-step").map(IdempotencyRecord::state).orElse(null),
					(state) -> state == RecordState.WAITING || state == RecordState.DEAD_LETTERED);

		SignalOutcome answer = signal(instance, "t-in-step", new Approval(true, "jack"), "s-j");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> store.find("approvals:t-in-step").map(IdempotencyRecord::isFinal).orElse(false));
		if (answer == SignalOutcome.RESUMED) {
			assertThat(instance.bean(ApprovalTaskHandler.class).result("t-in-step")).as("resumed: it took the signal")
				.endsWith("approved by jack");
		}
		else {
			assertThat(answer).isEqualTo(SignalOutcome.TOO_LATE);
			assertThat(instance.recorder().outcomes()).as("refused where it was reached, never suspended")
				.containsExactly(DeliveryOutcome.DEAD_LETTERED);
		}
	}

	@Test
	void aSleepWhoseWaitingRecordIsWrittenAfterItsLeaseRanOutStillWakes() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.nap=2s");
		instance.storeFaults().holdCompletionsOf("t-slow-record");
		instance.storeFaults().blockRenewals();
		publish(instance, "t-slow-record");
		await().atMost(Duration.ofSeconds(30)).until(() -> instance.storeFaults().heldCompletions() == 1);
		Thread.sleep(6000); // the lease (3s) runs out while the WAITING record is being written
		instance.storeFaults().releaseCompletions();
		awaitState(instance, "t-slow-record", RecordState.WAITING);

		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		await("the nap ended: the task waits for its approval").atMost(Duration.ofSeconds(30))
			.until(() -> store.find("approvals:t-slow-record").map(IdempotencyRecord::resultSummary).orElse(""),
					(summary) -> summary.startsWith("signal 'approval' until "));
	}

	@Test
	void aTaskDeadLetteredByASignalItCannotReadTakesAReadableSignalOnceReplayed() throws Exception {
		Instance instance = this.instances.start("a");
		publish(instance, "t-unreadable");
		awaitState(instance, "t-unreadable", RecordState.WAITING);
		assertThat(instance.bean(ExactlyOnceSignals.class).signal("approvals", "t-unreadable", "approval", "yes", "s-bad"))
			.isEqualTo(SignalOutcome.RESUMED);
		awaitState(instance, "t-unreadable", RecordState.DEAD_LETTERED);

		DeadLetterOperations deadLetters = instance.bean(DeadLetterOperations.class);
		long letter = deadLetters.list("approvals", 1, 10).get(0).sequence();
		deadLetters.replay("approvals", letter, "ops", "the approval is sent again as an Approval");
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> store.find("approvals:t-unreadable").map(IdempotencyRecord::attempts).orElse(0) > 0);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> store.find("approvals:t-unreadable").map(IdempotencyRecord::state).orElse(null),
					(state) -> state == RecordState.WAITING || state == RecordState.DEAD_LETTERED);

		assertThat(signal(instance, "t-unreadable", new Approval(true, "kim"), "s-good"))
			.as("the replayed task takes a readable signal").isIn(SignalOutcome.RESUMED, SignalOutcome.BUFFERED);
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-unreadable") != null);
		assertThat(handler.result("t-unreadable")).endsWith("approved by kim");
	}

	@Test
	void aWaitWhoseSuspensionIsCaughtAndWrappedStillSuspendsItsTask() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.wrapped=true");
		publish(instance, "t-wrapped");
		awaitState(instance, "t-wrapped", RecordState.WAITING);

		assertThat(signal(instance, "t-wrapped", new Approval(true, "h"), "s-h")).isEqualTo(SignalOutcome.RESUMED);
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-wrapped") != null);
		assertThat(handler.result("t-wrapped")).endsWith("approved by h");
		await().atMost(Duration.ofSeconds(30)).until(() -> instance.recorder().outcomes().size() == 2);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.SUSPENDED, DeliveryOutcome.PROCESSED);
	}

	@Test
	void aWaitWhoseSuspensionTheHandlerSwallowsStillSuspendsItsTaskAndSaysSo(CapturedOutput output) throws Exception {
		Instance instance = this.instances.start("a", "test.waits.swallowed=true");
		publish(instance, "t-swallowed");
		awaitState(instance, "t-swallowed", RecordState.WAITING);

		assertThat(output).contains("swallowed the suspension of its wait (signal 'approval' until ",
				"task 't-swallowed' is suspended all the same");
		assertThat(signal(instance, "t-swallowed", new Approval(true, "i"), "s-i")).isEqualTo(SignalOutcome.RESUMED);
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> "committed".equals(firstWord(handler.result("t-swallowed"))));
		assertThat(handler.result("t-swallowed")).endsWith("approved by i");
		assertThat(this.instances.ledger().commitsOf("t-swallowed")).hasSize(1);
	}

	private static String firstWord(String text) {
		return (text != null) ? text.split(" ")[0] : null;
	}

	private void publish(Instance instance, String taskId) {
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of(taskId), taskId);
	}

	private SignalOutcome signal(Instance instance, String taskId, Approval approval, String signalId) {
		return instance.bean(ExactlyOnceSignals.class).signal("approvals", taskId, "approval", approval, signalId);
	}

	private IdempotencyRecord awaitState(Instance instance, String taskId, RecordState state) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		return await().atMost(Duration.ofSeconds(30))
			.until(() -> store.find("approvals:" + taskId).orElse(null),
					(record) -> record != null && record.state() == state);
	}

}

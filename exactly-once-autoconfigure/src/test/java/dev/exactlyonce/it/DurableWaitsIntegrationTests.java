package dev.exactlyonce.it;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.util.StringUtils;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.testapp.ApprovalTaskHandler;
import dev.exactlyonce.testapp.ApprovalTaskHandler.Approval;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Durable waits on the default store, NATS KV: its bucket keeps entries {@code completed-ttl} plus
 * the longest wait, so a sealed journal part outlives the wait it was written before; and tasks
 * waiting while the nats-server is killed and restarted (their sleeps ending meanwhile) resume once.
 */
@ExtendWith(OutputCaptureExtension.class)
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
		Instant lastWake = keys.stream()
			.map((key) -> awaitState(instance, key, RecordState.WAITING))
			.filter((waiting) -> !waiting.resultSummary().startsWith("signal "))
			.map(AbstractDurableWaitsIntegrationTests::endOfWait)
			.max(Instant::compareTo)
			.orElseGet(Instant::now);

		this.nats.kill();
		await("every task's sleep ended while the server was down").atMost(Duration.ofSeconds(10))
			.until(() -> Instant.now().isAfter(lastWake.plusMillis(200)));
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
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		Instant leaseEnds = store.find("approvals:t-slow-record").orElseThrow().leaseUntil();
		await("the lease (3 s) ran out while the WAITING record is being written").atMost(Duration.ofSeconds(10))
			.until(() -> Instant.now().isAfter(leaseEnds.plusMillis(500)));
		instance.storeFaults().releaseCompletions();
		awaitState(instance, "t-slow-record", RecordState.WAITING);

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
	void aSignalToAWaitNameTheRunHasNotUsedIsKeptAndSaidOnce(CapturedOutput output) throws Exception {
		Instance instance = this.instances.start("a");
		publish(instance, "t-misspelt");
		awaitState(instance, "t-misspelt", RecordState.WAITING);
		ExactlyOnceSignals signals = instance.bean(ExactlyOnceSignals.class);

		assertThat(signals.signal("approvals", "t-misspelt", "aproval", new Approval(true, "kim"), "s-typo-1"))
			.as("the task may reach a wait of that name later").isEqualTo(SignalOutcome.BUFFERED);
		assertThat(signals.signal("approvals", "t-misspelt", "aproval", new Approval(true, "kim"), "s-typo-1"))
			.as("sent again").isEqualTo(SignalOutcome.DUPLICATE);
		String said = "a signal to wait 'aproval' is kept (BUFFERED), but no wait named 'aproval' was seen yet";
		assertThat(StringUtils.countOccurrencesOf(output.getOut(), said)).as("said once per consumer and name").isOne();

		assertThat(signal(instance, "t-misspelt", new Approval(true, "kim"), "s-right")).isEqualTo(SignalOutcome.RESUMED);
		assertThat(output.getOut()).doesNotContain("no wait named 'approval'");
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

}

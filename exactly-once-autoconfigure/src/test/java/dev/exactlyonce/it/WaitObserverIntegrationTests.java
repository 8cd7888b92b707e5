package dev.exactlyonce.it;

import java.time.Duration;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.testapp.ApprovalTaskHandler;
import dev.exactlyonce.testapp.ApprovalTaskHandler.Approval;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.testapp.WaitPointRecorder;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;
import dev.exactlyonce.waits.WaitPoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A {@code WaitObserver} bean is told, in order, when a signal's delivery stored the wait's decision
 * and when it reopened the task, before the task's copy is published (docs/waits.md); a sender that
 * fails at either point (an observer throwing, as the sender dying there would) leaves a task that the
 * timer's next look resumes, once, and the signal sent again with its id is a {@code DUPLICATE}.
 */
class WaitObserverIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.withApprovals();
	}

	@Test
	void aSignalThatResumesItsTaskPassesBothPointsInOrder() {
		Instance instance = this.instances.start("a");
		awaitWaiting(instance, "t-points");

		assertThat(signal(instance, "t-points", "s-points")).isEqualTo(SignalOutcome.RESUMED);
		assertThat(instance.bean(WaitPointRecorder.class).points()).containsExactly(
				"DECISION_STORED approvals:t-points approval", "RESUME_RECORDED approvals:t-points approval");
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-points") != null);
		assertThat(handler.result("t-points")).endsWith("approved by alice");
	}

	@ParameterizedTest
	@EnumSource(WaitPoint.class)
	void aSenderFailingAtAPointLeavesItsTaskToTheTimerWhichResumesItOnce(WaitPoint point) {
		Instance instance = this.instances.start("a");
		String task = "t-" + point.name().toLowerCase(Locale.ROOT).replace('_', '-');
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		awaitWaiting(instance, task);

		instance.bean(WaitPointRecorder.class).failOnceAt(point);
		assertThatIllegalStateException().isThrownBy(() -> signal(instance, task, "s-" + task))
			.withMessageContaining(point.name());

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result(task) != null);
		assertThat(handler.result(task)).as("resumed by the timer's next look (recheck-interval 1 s)")
			.endsWith("approved by alice");
		assertThat(this.instances.ledger().commitsOf(task)).hasSize(1);
		IdempotencyRecord completed = await().atMost(Duration.ofSeconds(30))
			.until(() -> store.find("approvals:" + task).orElse(null),
					(record) -> record != null && record.state() == RecordState.COMPLETED);
		assertThat(completed.audit()).extracting(OperatorAction::kind).containsExactly(OperatorAction.Kind.RESUME);
		assertThat(signal(instance, task, "s-" + task)).as("sent again: the first sending had stored it")
			.isEqualTo(SignalOutcome.DUPLICATE);
	}

	private static SignalOutcome signal(Instance instance, String task, String signalId) {
		return instance.bean(ExactlyOnceSignals.class)
			.signal("approvals", task, "approval", new Approval(true, "alice"), signalId);
	}

	private static void awaitWaiting(Instance instance, String task) {
		instance.bean(ExactlyOncePublisher.class).publish("agents.approvals.tasks.post", TaskAssignment.of(task), task);
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(30)).ignoreException(StoreUnavailableException.class)
			.until(() -> store.find("approvals:" + task).orElse(null),
					(record) -> record != null && record.state() == RecordState.WAITING);
	}

}

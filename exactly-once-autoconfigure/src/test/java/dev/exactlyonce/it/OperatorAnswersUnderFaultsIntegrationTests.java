package dev.exactlyonce.it;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.listener.KeyResolver;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.OperationRefusedException;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskResubmitter;
import dev.exactlyonce.operations.TaskStatus;
import dev.exactlyonce.operations.TaskView;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishOutcomeUnknownException;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.test.TcpProxy;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * What an operator is told and can do when things go wrong around a task: NATS applied an
 * operation but its answer was lost (the answer must not say that nothing was stored, since an
 * operator who believes it and asks again runs the task once more than asked); a poison copy of a
 * key whose good copy is waiting for its retry (the good copy must still run).
 */
class OperatorAnswersUnderFaultsIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private static final Duration WAIT = Duration.ofSeconds(30);

	@RegisterExtension
	final ClosedAfterEach resources = new ClosedAfterEach();

	@Test
	void aResubmitWhoseCopyWasStoredButNotAnsweredSaysItMayRunInsteadOfNotStoredAskAgain() {
		TcpProxy proxy = this.resources.add(new TcpProxy(this.nats.port()));
		Instance worker = this.instances.start("worker", "exactlyonce.streams.TASKS.retention=limits");
		Instance ops = this.instances.start("ops", "exactlyonce.streams.TASKS.retention=limits",
				"exactlyonce.nats.servers=nats://127.0.0.1:" + proxy.port(), "exactlyonce.nats.request-timeout=2s");
		ops.bean(ExactlyOnceListenerRegistry.class).stop();
		worker.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-kept"), "t-kept");
		await().atMost(WAIT).ignoreExceptions().until(() -> task(worker, "t-kept").status() == TaskStatus.COMPLETED);
		proxy.holdRepliesAfterRequestContaining("t-kept/resubmit-1");

		OperationRefusedException answer = catchThrowableOfType(OperationRefusedException.class,
				() -> ops.bean(TaskResubmitter.class).resubmit("worker", "t-kept", "alice", "model upgraded"));

		await("the copy the stream stored runs").atMost(WAIT)
			.until(() -> this.instances.ledger().executionsOf("t-kept") == 2
					&& task(worker, "t-kept").status() == TaskStatus.COMPLETED);
		proxy.releaseReplies();
		assertThat(answer).as("the copy's publish got no answer").isNotNull();
		assertThat(answer.kind()).isEqualTo(OperationRefusedException.Kind.UNAVAILABLE);
		assertThat(answer.getMessage()).as("the copy was stored and ran: 'not stored, ask again' is untrue")
			.doesNotContain("was not stored")
			.contains("may have been stored")
			.contains("RESUBMIT 1")
			.contains("t-kept/resubmit-1");
		TaskView task = task(worker, "t-kept");
		assertThat(task.audit()).extracting(OperatorAction::kind).containsExactly(OperatorAction.Kind.RESUBMIT);
	}

	@Test
	void aPublisherResubmitWhoseCopyWasNotAnsweredSaysToResubmitAgainNotToPublishTheCopysMessageId() {
		TcpProxy proxy = this.resources.add(new TcpProxy(this.nats.port()));
		Instance worker = this.instances.start("worker");
		Instance service = this.instances.start("service", "exactlyonce.nats.servers=nats://127.0.0.1:" + proxy.port(),
				"exactlyonce.nats.request-timeout=2s", "exactlyonce.publisher.max-attempts=1");
		service.bean(ExactlyOnceListenerRegistry.class).stop();
		worker.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-done"), "t-done");
		await().atMost(WAIT).ignoreExceptions().until(() -> task(worker, "t-done").status() == TaskStatus.COMPLETED);
		proxy.holdRepliesAfterRequestContaining("t-done/resubmit-1");

		PublishOutcomeUnknownException answer = catchThrowableOfType(PublishOutcomeUnknownException.class,
				() -> service.bean(ExactlyOncePublisher.class).resubmit("worker", "t-done", SUBJECT,
						TaskAssignment.of("t-done"), "billing-service", "wrong output"));

		await("the copy the stream stored runs").atMost(WAIT)
			.until(() -> this.instances.ledger().executionsOf("t-done") == 2
					&& task(worker, "t-done").status() == TaskStatus.COMPLETED);
		proxy.releaseReplies();
		assertThat(answer).as("the copy's publish got no answer").isNotNull();
		assertThat(answer.getMessage())
			.as("publishing 't-done/resubmit-1' by hand would run it under a key of its own (no key header)")
			.doesNotContain("Publish again with the same message id")
			.contains("RESUBMIT 1")
			.contains("may have been stored");
	}

	@Test
	void aPoisonCopyOfAKeyWhoseGoodCopyWaitsForItsRetryLeavesTheGoodCopyToRun() {
		Instance a = this.instances.start("a", "test.failures=1", "exactlyonce.consumers.worker.retry-delay=3s");
		ExactlyOncePublisher publisher = a.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1");
		await("the good copy's first attempt failed and waits for its retry").atMost(WAIT)
			.until(() -> a.recorder().outcomes().contains(DeliveryOutcome.RETRIED));

		publisher.publish(SUBJECT, "not json", "t-1/garbled", Map.of(KeyResolver.ORIGINAL_MESSAGE_ID_HEADER, "t-1"));

		await("the poison copy is parked").atMost(WAIT)
			.until(() -> a.bean(DeadLetterOperations.class).list("worker", 1, 10).size() == 1);
		await("the good copy's retry runs the task").atMost(WAIT)
			.until(() -> this.instances.ledger().executionsOf("t-1") == 1
					&& task(a, "t-1").status() == TaskStatus.COMPLETED);
		assertThat(a.recorder().outcomes()).doesNotContain(DeliveryOutcome.ALREADY_DEAD_LETTERED);
	}

	@Test
	void aPoisonCopyDeliveredBeforeItsKeysGoodCopyLeavesTheGoodCopyToRun() {
		Instance a = this.instances.start("a");
		ExactlyOncePublisher publisher = a.bean(ExactlyOncePublisher.class);
		a.bean(ExactlyOnceListenerRegistry.class).stop();
		publisher.publish(SUBJECT, "not json", "t-2/garbled", Map.of(KeyResolver.ORIGINAL_MESSAGE_ID_HEADER, "t-2"));
		publisher.publish(SUBJECT, TaskAssignment.of("t-2"), "t-2");
		Instance b = this.instances.start("b");

		await("the poison copy is parked and the good copy runs the task").atMost(WAIT)
			.until(() -> b.bean(DeadLetterOperations.class).list("worker", 1, 10).size() == 1
					&& this.instances.ledger().executionsOf("t-2") == 1
					&& b.bean(TaskInspector.class).task("worker", "t-2").map(TaskView::status).orElse(null) == TaskStatus.COMPLETED);
		assertThat(b.recorder().outcomes()).doesNotContain(DeliveryOutcome.ALREADY_DEAD_LETTERED);
	}

	private static TaskView task(Instance instance, String key) {
		return instance.bean(TaskInspector.class).task("worker", key).orElseThrow();
	}

}

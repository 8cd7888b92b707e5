package dev.exactlyonce.it;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import io.nats.client.Connection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.listener.CompletionParking;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.nats.NatsKvCompletionParking;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.testapp.TestInstances;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store is unreachable when the completion record must be written: the message is kept alive
 * with working acks and the write retried until the store answers, however long past
 * {@code completion-retry-timeout} that is; one execution, acked once.
 */
@ExtendWith(OutputCaptureExtension.class)
class StoreOutageIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "2s");
	}

	@Test
	void completionWrittenAfterAnOutageLongerThanTheAckWaitWithoutRedelivery() throws Exception {
		Instance instance = this.instances.start("a");
		instance.storeFaults().failCompletionsFor(Duration.ofSeconds(6));
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		assertProcessedOnceAndAckedOnce(instance, "t-1");
	}

	@Test
	void aCompletionSlowerThanTheLeaseKeepsTheClaimLiveSoNoOtherCopyCouldTakeTheTaskOver() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.store.lease=3s",
				"exactlyonce.consumers.worker.working-ack-interval=500ms");
		instance.storeFaults().holdCompletions();
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-3"),
				"t-3");
		await().atMost(Duration.ofSeconds(10)).until(() -> instance.storeFaults().heldCompletions() == 1);
		IdempotencyStore store = instance.bean(IdempotencyStore.class);

		await().during(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(9))
			.until(() -> store.find("worker:t-3").orElseThrow().isLiveClaim(Instant.now()));
		instance.storeFaults().releaseCompletions();

		assertProcessedOnceAndAckedOnce(instance, "t-3");
	}

	@Test
	void aCompletionStillRetriedWhenTheShutdownTimeoutRunsOutStopsWithTheContext(CapturedOutput output)
			throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.listener.shutdown-timeout=2s");
		instance.storeFaults().failCompletionsFor(Duration.ofSeconds(30));
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-4"),
				"t-4");
		await().atMost(Duration.ofSeconds(10)).until(() -> output.getAll().contains("not written, retrying"));

		instance.context().close();
		int atClose = retries(output);

		await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> retries(output) == atClose);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.COMPLETION_PARKED);
	}

	@Test
	void aFinishedHandlerWhoseRecordTheStoreRefusedUntilShutdownIsRecordedByTheNextInstanceNotRunAgain(
			CapturedOutput output) throws Exception {
		Instance leaving = this.instances.start("a", "exactlyonce.listener.shutdown-timeout=3s",
				"exactlyonce.store.lease=4s", "exactlyonce.consumers.worker.working-ack-interval=500ms");
		leaving.storeFaults().failCompletionsFor(Duration.ofSeconds(15));
		leaving.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-5"),
				"t-5");
		await().atMost(Duration.ofSeconds(10)).until(() -> output.getAll().contains("not written, retrying"));
		leaving.context().close();
		assertThat(leaving.recorder().outcomes()).as("settled within the shutdown")
			.containsExactly(DeliveryOutcome.COMPLETION_PARKED);

		Instance next = this.instances.start("b", "exactlyonce.store.lease=4s",
				"exactlyonce.consumers.worker.working-ack-interval=500ms");
		IdempotencyStore store = next.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> next.recorder().outcomes().contains(DeliveryOutcome.COMPLETION_RECOVERED));
		assertThat(this.instances.ledger().executionsOf("t-5")).isEqualTo(1);
		IdempotencyRecord record = store.find("worker:t-5").orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.streamSequence()).isEqualTo(1);
		assertThat(parking(next).find("worker:t-5")).isEmpty();
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(10)).until(() -> probe.drained("TASKS", "worker"));
		}
	}

	@Test
	void aCompletionParkedByTheLastAttemptOfItsMessageIsRecordedNotDeadLettered() throws Exception {
		this.instances.with("exactlyonce.consumers.worker.max-deliver", "1");
		Instance leaving = this.instances.start("a", "exactlyonce.listener.shutdown-timeout=2s",
				"exactlyonce.store.lease=4s", "exactlyonce.consumers.worker.working-ack-interval=500ms");
		leaving.storeFaults().failCompletionsFor(Duration.ofSeconds(60));
		leaving.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-7"),
				"t-7");
		await().atMost(Duration.ofSeconds(10)).until(() -> parking(leaving).find("worker:t-7").isPresent());
		Instance next = this.instances.start("b", "exactlyonce.store.lease=4s");
		leaving.context().close();
		assertThat(leaving.recorder().outcomes()).containsExactly(DeliveryOutcome.COMPLETION_PARKED);

		IdempotencyStore store = next.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> store.find("worker:t-7").orElseThrow().state() == RecordState.COMPLETED);
		// the outcome is reported once the ack reached the server, after the record
		await().atMost(Duration.ofSeconds(10)).until(() -> !next.recorder().outcomes().isEmpty());
		assertThat(next.bean(DeadLetterOperations.class).list("worker", 1, 10)).isEmpty();
		assertThat(this.instances.ledger().executionsOf("t-7")).isEqualTo(1);
		assertThat(next.recorder().outcomes()).containsExactly(DeliveryOutcome.COMPLETION_RECOVERED);
	}

	@Test
	void aCompletionParkedByAnotherAttemptOfTheKeyIsNotTakenForTheAttemptThatDied() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.store.lease=2s",
				"exactlyonce.consumers.worker.working-ack-interval=500ms");
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		ClaimResult.Acquired died = (ClaimResult.Acquired) store.tryClaim("worker:t-6", "gone#1", Duration.ofSeconds(2));
		parking(instance).park("worker:t-6", new CompletionParking.Parked(UUID.randomUUID().toString(),
					Completion.completed("worker", 1, "parked by an attempt this one never took over")));

		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-6"),
				"t-6");

		await().atMost(Duration.ofSeconds(30))
			.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED));
		assertThat(this.instances.ledger().executionsOf("t-6")).isEqualTo(1);
		IdempotencyRecord record = store.find("worker:t-6").orElseThrow();
		assertThat(record.previousAttempt().token()).isEqualTo(died.claim().token());
		assertThat(record.resultSummary()).doesNotContain("never took over");
	}

	private static CompletionParking parking(Instance instance) throws Exception {
		Connection connection = instance.bean(Connection.class);
		return new NatsKvCompletionParking(connection.keyValue("EXACTLYONCE_PARKED_COMPLETIONS"),
				connection.keyValueManagement());
	}

	private static int retries(CapturedOutput output) {
		return output.getAll().split("not written, retrying", -1).length - 1;
	}

	@Test
	void aFinishedHandlerIsNeverRunAgainWhenTheOutageOutlastsTheCompletionRetryTimeout() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.store.lease=3s",
				"exactlyonce.consumers.worker.working-ack-interval=500ms",
				"exactlyonce.listener.completion-retry-timeout=1s");
		instance.storeFaults().failCompletionsFor(Duration.ofSeconds(3));
		instance.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-2"),
				"t-2");
		assertProcessedOnceAndAckedOnce(instance, "t-2");
	}

}

package dev.exactlyonce.it;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

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
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.COMPLETION_UNRECORDED);
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

package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Handler exceptions: retried with the consumer's backoff, dead-lettered when non-retryable or on
 * the last delivery, with the original bytes and the reason headers; never silently lost.
 */
@ExtendWith(OutputCaptureExtension.class)
class HandlerFailureIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private static final String DEAD_LETTER_SUBJECT = "deadletter.TASKS.worker";

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.backoff", "1s,1s,1s")
			.with("exactlyonce.consumers.worker.max-deliver", "4");
	}

	@Test
	void aTaskWaitingOutItsRetryDelayDoesNotHoldUpTheTasksBehindIt() throws Exception {
		Instance instance = this.instances.start("a", "test.always-failing=t-failing",
				"exactlyonce.consumers.worker.backoff=20s,20s,20s");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, task("t-failing"), "t-failing");
		await().atMost(Duration.ofSeconds(10)).until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.RETRIED));
		for (int i = 1; i <= 3; i++) {
			publisher.publish(SUBJECT, task("t-" + i), "t-" + i);
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> instance.recorder().outcomes().stream().filter(DeliveryOutcome.PROCESSED::equals).count() == 3);
		assertThat(this.instances.ledger().startedOf("t-failing")).isEqualTo(1);
	}

	@Test
	void handlerFailingTwiceThenSucceedingRunsThreeTimesAndCompletesOnce() throws Exception {
		Instance instance = this.instances.start("a", "test.failures=2");
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, task("t-retry"), "t-retry");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED) && probe.drained("TASKS", "worker"));
		}
		assertThat(this.instances.ledger().startedOf("t-retry")).isEqualTo(3);
		assertThat(this.instances.ledger().executionsOf("t-retry")).isEqualTo(1);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.RETRIED, DeliveryOutcome.RETRIED,
				DeliveryOutcome.PROCESSED);
		assertThat(instance.recorder().count(PipelinePoint.ACKED)).isEqualTo(1);
		assertThat(this.instances.ledger().started().get(2).previousAttempt().state()).isEqualTo(RecordState.FAILED);
		assertThat(instance.bean(IdempotencyStore.class).find("worker:t-retry").orElseThrow().attempts()).isEqualTo(3);
	}

	@Test
	void handlerAlwaysFailingIsDeadLetteredOnItsLastDeliveryWithReasonAndOriginalBytes() throws Exception {
		Instance instance = this.instances.start("a", "test.failures=99");
		byte[] original = task("t-doomed").getBytes(StandardCharsets.UTF_8);
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, original, "t-doomed",
				Map.of("Nats-Expected-Stream", "TASKS", "X-Tenant", "acme"));
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).size() == 1 && probe.drained("TASKS", "worker"));
			MessageInfo deadLetter = probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).get(0);
			assertThat(deadLetter.getData()).isEqualTo(original);
			Headers headers = deadLetter.getHeaders();
			assertThat(headers.getFirst("Exactly-Once-Original-Subject")).isEqualTo(SUBJECT);
			assertThat(headers.getFirst("Exactly-Once-Stream")).isEqualTo("TASKS");
			assertThat(headers.getFirst("Exactly-Once-Consumer")).isEqualTo("worker");
			assertThat(headers.getFirst("Exactly-Once-Stream-Sequence")).isEqualTo("1");
			assertThat(headers.getFirst("Exactly-Once-Deliveries")).isEqualTo("4");
			assertThat(headers.getFirst("Exactly-Once-Key")).isEqualTo("t-doomed");
			assertThat(headers.getFirst("Exactly-Once-Reason")).contains("last delivery");
			assertThat(headers.getFirst("Exactly-Once-Exception")).isEqualTo(IllegalStateException.class.getName());
			assertThat(headers.getFirst("Exactly-Once-Exception-Message")).isEqualTo("simulated model failure");
			assertThat(headers.getFirst("Exactly-Once-Timestamp")).isNotBlank();
			assertThat(headers.getFirst("X-Tenant")).as("original headers are kept").isEqualTo("acme");
			assertThat(headers.containsKey("Nats-Expected-Stream")).as("instructions to the original stream are not")
				.isFalse();
			assertThat(probe.stream("TASKS").getStreamState().getMsgCount()).isZero();
		}
		assertThat(this.instances.ledger().startedOf("t-doomed")).isEqualTo(4);
		assertThat(this.instances.ledger().executionsOf("t-doomed")).isZero();
		assertThat(instance.bean(IdempotencyStore.class).find("worker:t-doomed").orElseThrow().state())
			.isEqualTo(RecordState.DEAD_LETTERED);
		assertThat(instance.recorder().outcomes()).endsWith(DeliveryOutcome.DEAD_LETTERED);
	}

	@Test
	void eachFailureLogsTheExceptionsMessageAndAStackTraceOnlyOnItsFirstAndLastDeliveryAndEachOutcomeOneDebugLine(
			CapturedOutput output) throws Exception {
		Instance instance = this.instances.start("a", "test.failures=99",
				"logging.level.dev.exactlyonce.listener=DEBUG");
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, task("t-logged"), "t-logged");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).size() == 1 && probe.drained("TASKS", "worker"));
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> instance.recorder().outcomes().size() == 4);
		String where = "stream 'TASKS', consumer 'worker', sequence 1, delivery ";
		for (int delivery = 1; delivery <= 3; delivery++) {
			assertThat(output).contains("Handler failed on the message at " + where + delivery
					+ " (key 't-logged'), redelivery requested: java.lang.IllegalStateException: simulated model failure");
		}
		assertThat(output).contains("Message at " + where + "4 dead-lettered to '" + DEAD_LETTER_SUBJECT
				+ "': handler failed on the last delivery (max-deliver reached) (java.lang.IllegalStateException: "
				+ "simulated model failure)");
		assertThat(occurrences(output.getAll(), "java.lang.IllegalStateException: simulated model failure" + System.lineSeparator() + "\tat "))
			.as("stack traces: the first delivery and the one that dead-lettered").isEqualTo(2);
		List<String> outcomeLines = output.getAll().lines()
			.filter((line) -> line.contains("DEBUG") && line.contains("Message at " + where))
			.toList();
		assertThat(outcomeLines).as("one DEBUG line per outcome").hasSize(4);
		assertThat(outcomeLines.get(0)).containsPattern("sequence 1, delivery 1, key 't-logged': retried in \\d+ ms$");
		assertThat(outcomeLines.get(3)).containsPattern("sequence 1, delivery 4, key 't-logged': dead_lettered in \\d+ ms$");
	}

	private static int occurrences(String text, String regex) {
		return (int) Pattern.compile(regex).matcher(text).results().count();
	}

	@Test
	void nonRetryableExceptionIsDeadLetteredAtOnceAndItsKeyNeverRunsAgain(CapturedOutput output) throws Exception {
		Instance instance = this.instances.start("a", "test.failures=99", "test.failure=illegal-argument",
				"test.key=payload.taskId",
				"exactlyonce.consumers.worker.non-retryable-exceptions=java.lang.IllegalArgumentException");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, task("t-bad"), "t-bad");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).size() == 1 && probe.drained("TASKS", "worker"));
			assertThat(probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).get(0).getHeaders()
				.getFirst("Exactly-Once-Reason")).contains("non-retryable");
		}
		assertThat(this.instances.ledger().startedOf("t-bad")).isEqualTo(1);

		publisher.publish(SUBJECT, task("t-bad"), "t-bad-republished");
		await().atMost(Duration.ofSeconds(20)).until(() -> instance.recorder().outcomes().size() == 2);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.DEAD_LETTERED,
				DeliveryOutcome.ALREADY_DEAD_LETTERED);
		assertThat(this.instances.ledger().startedOf("t-bad")).as("a dead-lettered key never runs again").isEqualTo(1);
		assertThat(output).contains("Message at stream 'TASKS', consumer 'worker', sequence 2, delivery 1 is a copy of "
				+ "key 't-bad', which was dead-lettered before; terminated without running it. To run the key again, "
				+ "delete its record 'worker:t-bad' from the idempotency store and publish it again");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(5)).until(() -> probe.drained("TASKS", "worker")
					&& probe.stream("TASKS").getStreamState().getMsgCount() == 0);
		}
	}

	@Test
	void maxDeliverBoundsTheExecutionsOfABusinessKeyAcrossItsCopies() throws Exception {
		Instance instance = this.instances.start("a", "test.always-failing=t-doc", "test.key=payload.taskId",
				"exactlyonce.consumers.worker.concurrency=2");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, task("t-doc"), "t-doc-copy-1");
		publisher.publish(SUBJECT, task("t-doc"), "t-doc-copy-2");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30)).until(() -> probe.drained("TASKS", "worker")
					&& probe.stream("TASKS").getStreamState().getMsgCount() == 0
					&& probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).size() == 1);
		}
		assertThat(this.instances.ledger().startedOf("t-doc")).as("executions of the key, max-deliver 4").isEqualTo(4);
		assertThat(instance.recorder().outcomes()).containsOnlyOnce(DeliveryOutcome.DEAD_LETTERED)
			.containsOnlyOnce(DeliveryOutcome.ALREADY_DEAD_LETTERED);
	}

	private static String task(String taskId) {
		return "{\"taskId\":\"" + taskId + "\",\"assignee\":\"marketing\",\"type\":\"blog-post\",\"payload\":{}}";
	}

}

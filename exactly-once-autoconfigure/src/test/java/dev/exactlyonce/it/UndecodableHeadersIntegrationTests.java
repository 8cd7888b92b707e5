package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.actuate.ExactlyOnceHealthIndicator;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Java client accepts only printable US-ASCII header values. A message from another client
 * with UTF-8 header values stops the connection's reader; the starter notices, reconnects, and
 * dead-letters that message with its headers preserved (encoded), while every other task keeps
 * running exactly once. Headers the starter writes itself (keys, exception messages, message ids)
 * never make the client throw.
 */
@ExtendWith(OutputCaptureExtension.class)
class UndecodableHeadersIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private static final String DEAD_LETTER_SUBJECT = "deadletter.TASKS.worker";

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "2s")
			.with("exactlyonce.consumers.worker.max-deliver", "3")
			.with("exactlyonce.consumers.worker.non-retryable-exceptions", IllegalArgumentException.class.getName());
	}

	@Test
	void messageWithHeadersTheJavaClientCannotDecodeIsDeadLetteredAndTheListenerKeepsReading(CapturedOutput output)
			throws Exception {
		Instance instance = this.instances.start("a");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-before"), "t-before");
		await().atMost(Duration.ofSeconds(20)).until(() -> this.instances.ledger().executionsOf("t-before") == 1);
		byte[] poison = task("tâche-1");
		try (RawNatsPublisher raw = new RawNatsPublisher(this.nats.url())) {
			raw.publish(SUBJECT, RawNatsPublisher.headers("Nats-Msg-Id", "tâche-1", "X-Title", "Café"), poison);
			raw.flush();
		}
		publisher.publish(SUBJECT, TaskAssignment.of("t-after"), "t-after");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> this.instances.ledger().executionsOf("t-after") == 1
						&& probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).size() == 1 && probe.drained("TASKS", "worker")
						&& probe.stream("TASKS").getStreamState().getMsgCount() == 0);
			MessageInfo deadLetter = probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).get(0);
			assertThat(deadLetter.getData()).isEqualTo(poison);
			Headers headers = deadLetter.getHeaders();
			assertThat(headers.getFirst("Exactly-Once-Reason")).isEqualTo("headers the Java client cannot decode");
			assertThat(headers.getFirst("Exactly-Once-Stream-Sequence")).isEqualTo("2");
			assertThat(HeaderEncoding.first(headers, "Exactly-Once-Key")).isEqualTo("tâche-1");
			assertThat(HeaderEncoding.decoded(headers)).containsEntry("X-Title", List.of("Café"));
		}
		assertThat(this.instances.ledger().executionsOf("t-before")).isEqualTo(1);
		assertThat(this.instances.ledger().executionsOf("t-after")).isEqualTo(1);
		assertThat(this.instances.ledger().startedOf("tâche-1")).isZero();
		assertThat(instance.recorder().outcomes()).containsOnlyOnce(DeliveryOutcome.DEAD_LETTERED);
		assertThat(instance.bean(MeterRegistry.class).get("exactlyonce.nats.undecodable.messages").counter().count())
			.isGreaterThanOrEqualTo(1);
		assertThat(output).contains("ERROR").contains("could not decode");
		await().atMost(Duration.ofSeconds(10))
			.until(() -> instance.bean(ExactlyOnceHealthIndicator.class).health().getStatus().equals(Status.UP));
	}

	@Test
	void onAStreamThatKeepsMessagesTheUndecodableDeliveryIsTerminatedAndNeverStopsTheReaderAgain() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.streams.TASKS.retention=limits");
		try (RawNatsPublisher raw = new RawNatsPublisher(this.nats.url())) {
			raw.publish(SUBJECT, RawNatsPublisher.headers("Nats-Msg-Id", "tâche-4"), task("tâche-4"));
			raw.flush();
		}
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-after"), "t-after");
		MeterRegistry registry = instance.bean(MeterRegistry.class);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> this.instances.ledger().executionsOf("t-after") == 1
						&& probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).size() == 1 && probe.drained("TASKS", "worker"));
			await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6))
				.until(() -> registry.get("exactlyonce.nats.undecodable.messages").counter().count() == 1
						&& probe.drained("TASKS", "worker"));
			assertThat(probe.stream("TASKS").getStreamState().getMsgCount()).isEqualTo(2);
		}
		assertThat(instance.recorder().outcomes()).containsOnlyOnce(DeliveryOutcome.DEAD_LETTERED);
	}

	@Test
	void nonRetryableFailureOnNonAsciiKeyWithNonAsciiExceptionMessageIsDeadLetteredOnce() throws Exception {
		String failureMessage = "tâche refusée: é";
		Instance instance = this.instances.start("a", "test.key=payload.taskId", "test.failures=99",
				"test.failure=illegal-argument", "test.failure-message=" + failureMessage);
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, task("tâche-2"), "t-2");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).size() == 1 && probe.drained("TASKS", "worker")
						&& probe.stream("TASKS").getStreamState().getMsgCount() == 0);
			Headers headers = probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).get(0).getHeaders();
			assertThat(HeaderEncoding.first(headers, "Exactly-Once-Key")).isEqualTo("tâche-2");
			assertThat(HeaderEncoding.first(headers, "Exactly-Once-Exception-Message")).isEqualTo(failureMessage);
		}
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.DEAD_LETTERED);
		assertThat(this.instances.ledger().startedOf("tâche-2")).isEqualTo(1);
	}

	@Test
	void nonAsciiMessageIdAndHeaderValuesArePublishedEncodedAndTheKeyIsReadBackAsSent() throws Exception {
		Instance instance = this.instances.start("a");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("tâche-3"), "tâche-3", Map.of("X-Title", "Café"));
		assertThat(publisher.publish(SUBJECT, TaskAssignment.of("tâche-3"), "tâche-3").duplicate()).isTrue();
		assertProcessedOnceAndAckedOnce(instance, "tâche-3");
	}

	private static byte[] task(String taskId) {
		return ("{\"taskId\":\"" + taskId + "\",\"assignee\":\"marketing\",\"type\":\"blog-post\",\"payload\":{}}")
			.getBytes(StandardCharsets.UTF_8);
	}

}

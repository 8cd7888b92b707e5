package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import io.nats.client.Connection;
import io.nats.client.api.MessageInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A dead letter is the original plus the starter's headers, and the server limits headers plus
 * body to {@code max_payload}: the starter trims what it adds so that the original fits, and when
 * even the original does not, keeps the message on its stream with an error saying so.
 */
@ExtendWith(OutputCaptureExtension.class)
class OversizedDeadLetterIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private static final String DEAD_LETTER_SUBJECT = "deadletter.TASKS.worker";

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.max-deliver", "2")
			.with("exactlyonce.consumers.worker.retry-delay", "1s")
			.with("exactlyonce.consumers.worker.non-retryable-exceptions", IllegalArgumentException.class.getName())
			.with("test.failures", "99")
			.with("test.failure", "illegal-argument")
			.with("test.failure-message", "rejected: " + "x".repeat(2000));
	}

	@Test
	void rejectedBodyJustBelowMaxPayloadIsDeadLetteredWithItsWholeBody() throws Exception {
		Instance instance = this.instances.start("a");
		byte[] body = taskOfSize("t-big", instance.bean(Connection.class).getMaxPayload() - 500);
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, body, "t-big");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).size() == 1
						&& probe.drained("TASKS", "worker") && probe.stream("TASKS").getStreamState().getMsgCount() == 0);
			MessageInfo deadLetter = probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).get(0);
			assertThat(deadLetter.getData()).isEqualTo(body);
			assertThat(deadLetter.getHeaders().getFirst("Exactly-Once-Stream-Sequence")).isEqualTo("1");
			assertThat(deadLetter.getHeaders().getFirst("Exactly-Once-Reason")).contains("non-retryable");
		}
		assertThat(this.instances.ledger().startedOf("t-big")).isEqualTo(1);
	}

	@Test
	void messageWhoseOriginalAloneCannotBeDeadLetteredStaysOnItsStreamWithAClearError(CapturedOutput output)
			throws Exception {
		Instance instance = this.instances.start("a");
		byte[] body = taskOfSize("t-huge", instance.bean(Connection.class).getMaxPayload() - 500);
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, body, "t-huge", Map.of("X-Pad", "p".repeat(440)));
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> output.toString().contains("does not fit") && this.instances.ledger().startedOf("t-huge") == 2
						&& probe.drained("TASKS", "worker"));
			assertThat(probe.stream("TASKS").getStreamState().getMsgCount()).isEqualTo(1);
			assertThat(probe.stream("DEAD_LETTERS").getStreamState().getMsgCount()).isZero();
		}
		assertThat(output).contains("stream 'TASKS', consumer 'worker', sequence 1")
			.contains("max_payload")
			.containsPattern("\\d+ bytes");
	}

	private static byte[] taskOfSize(String taskId, long size) {
		String start = "{\"taskId\":\"" + taskId + "\",\"assignee\":\"marketing\",\"type\":\"blog-post\",\"payload\":{\"pad\":\"";
		String end = "\"}}";
		return (start + "x".repeat((int) size - start.length() - end.length()) + end).getBytes(StandardCharsets.UTF_8);
	}

}

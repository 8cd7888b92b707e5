package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.nats.client.api.MessageInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Messages that can never be handled as they are (no key, not JSON, does not bind, too large) are
 * dead-lettered unread with a log line naming where they are, the rule and the property that
 * fixes it, never their payload; the handler is not called and the container keeps going.
 */
@ExtendWith(OutputCaptureExtension.class)
class PoisonMessageIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private static final String SECRET = "s3cr3t-payload-marker";

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.max-payload-size", "1KB");
	}

	@Test
	void eachPoisonKindIsDeadLetteredWithoutCallingTheHandler(CapturedOutput output) throws Exception {
		Instance instance = this.instances.start("a");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			probe.connection().jetStream().publish(SUBJECT, ("{\"taskId\":\"" + SECRET + "\"}").getBytes(StandardCharsets.UTF_8));
			publisher.publish(SUBJECT, "not json " + SECRET, "p-not-json");
			publisher.publish(SUBJECT, "{\"taskId\":[\"" + SECRET + "\"]}", "p-does-not-bind");
			char[] big = new char[2048];
			Arrays.fill(big, 'x');
			publisher.publish(SUBJECT, "{\"taskId\":\"" + SECRET + new String(big) + "\"}", "p-too-large");
			publisher.publish(SUBJECT, TaskAssignment.of("t-fine"), "t-fine");

			await().atMost(Duration.ofSeconds(30)).until(() -> instance.recorder().outcomes().size() == 5
					&& probe.drained("TASKS", "worker"));
			List<MessageInfo> deadLetters = probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker");
			assertThat(deadLetters).hasSize(4);
			assertThat(deadLetters).map((m) -> m.getHeaders().getFirst("Exactly-Once-Reason"))
				.anySatisfy((reason) -> assertThat(reason).contains("has no Nats-Msg-Id header"))
				.anySatisfy((reason) -> assertThat(reason).contains("cannot be read as"))
				.anySatisfy((reason) -> assertThat(reason).contains("above the limit of 1024"));
		}
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.DEAD_LETTERED,
				DeliveryOutcome.DEAD_LETTERED, DeliveryOutcome.DEAD_LETTERED, DeliveryOutcome.DEAD_LETTERED,
				DeliveryOutcome.PROCESSED);
		assertThat(this.instances.ledger().started()).singleElement()
			.satisfies((execution) -> assertThat(execution.taskId()).isEqualTo("t-fine"));
		assertThat(output).contains("stream 'TASKS', consumer 'worker', sequence 1")
			.contains("Publish it with ExactlyOncePublisher")
			.contains("exactlyonce.consumers.worker.max-payload-size")
			.doesNotContain(SECRET);
	}

}

package dev.exactlyonce.it;

import java.time.Duration;

import io.nats.client.Connection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishException;
import dev.exactlyonce.publish.PublishOutcomeUnknownException;
import dev.exactlyonce.publish.PublishResult;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * The publisher retries a publish whose answer is lost with the same message id, but never so late
 * that a retry could arrive after the stream's duplicate window; a retry budget longer than a
 * declared window is reported at start-up. A publish that may have been sent but was never
 * answered is reported as of unknown outcome, with the id to publish again; one that was never
 * sent is reported as not stored.
 */
@ExtendWith(OutputCaptureExtension.class)
class PublisherRetryIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.listener.auto-startup", "false")
			.with("exactlyonce.streams.TASKS.duplicate-window", "3s")
			.with("exactlyonce.nats.request-timeout", "500ms")
			.with("exactlyonce.publisher.max-attempts", "20")
			.with("exactlyonce.publisher.initial-backoff", "200ms");
	}

	@Test
	void retryBudgetBeyondTheDuplicateWindowIsReportedAtStartup(CapturedOutput output) {
		this.instances.start("publisher");
		assertThat(output).contains("exactlyonce.streams.TASKS.duplicate-window is 3s")
			.contains("retries will stop at the window");
	}

	@Test
	void retriesStopBeforeTheDuplicateWindowEnds() {
		ExactlyOncePublisher publisher = this.instances.start("publisher").bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-0"), "t-0");
		this.nats.pause();
		long started = System.nanoTime();
		assertThatExceptionOfType(PublishOutcomeUnknownException.class)
			.isThrownBy(() -> publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1"))
			.withMessageContaining("duplicate window (3s)");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void anUnansweredPublishIsOfUnknownOutcomeAndItsRetryWithTheSameIdRunsTheTaskOnce() throws Exception {
		Instance instance = this.instances.start("worker", "exactlyonce.listener.auto-startup=true",
				"exactlyonce.streams.TASKS.duplicate-window=1h", "exactlyonce.publisher.max-attempts=3");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		this.nats.pause();
		Throwable thrown = catchThrowable(() -> publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1"));
		assertThat(thrown).as("the caller is told the outcome is unknown")
			.isInstanceOf(PublishOutcomeUnknownException.class);
		PublishOutcomeUnknownException unknown = (PublishOutcomeUnknownException) thrown;
		assertThat(unknown.getMessageId()).isEqualTo("t-1");
		assertThat(unknown).hasMessageContaining("same message id 't-1'");
		this.nats.resume();
		await().atMost(Duration.ofSeconds(20)).until(() -> this.instances.ledger().executionsOf("t-1") == 1);

		PublishResult retry = publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1");

		assertThat(retry.duplicate()).as("the late copy was stored; the retry is its duplicate").isTrue();
		assertProcessedOnceAndAckedOnce(instance, "t-1");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.stream("TASKS").getStreamState().getLastSequence()).as("messages ever stored").isEqualTo(1);
		}
	}

	@Test
	void aPublishWhileDisconnectedIsNotSentAndItsRetryAfterTheReconnectRunsTheTaskOnce() throws Exception {
		Instance instance = this.instances.start("worker", "exactlyonce.listener.auto-startup=true",
				"exactlyonce.streams.TASKS.duplicate-window=1h", "exactlyonce.publisher.max-attempts=3",
				"exactlyonce.nats.reconnect-wait=200ms");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		Connection connection = instance.bean(Connection.class);
		this.nats.kill();
		await().atMost(Duration.ofSeconds(10)).until(() -> connection.getStatus() != Connection.Status.CONNECTED);
		PublishException failed = catchThrowableOfType(PublishException.class,
				() -> publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1"));
		assertThat(failed).as("the caller is told the publish failed").isNotNull()
			.isNotInstanceOf(PublishOutcomeUnknownException.class)
			.hasMessageContaining("not sent");
		assertThat(failed.getMessageId()).isEqualTo("t-1");
		this.nats.start();
		await().atMost(Duration.ofSeconds(20)).until(() -> connection.getStatus() == Connection.Status.CONNECTED);

		PublishResult retry = publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1");

		assertThat(retry.duplicate()).as("nothing of the failed publish reached the stream").isFalse();
		assertProcessedOnceAndAckedOnce(instance, "t-1");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.stream("TASKS").getStreamState().getLastSequence()).as("messages ever stored").isEqualTo(1);
		}
	}

}

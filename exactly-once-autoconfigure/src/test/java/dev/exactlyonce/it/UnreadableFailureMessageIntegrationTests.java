package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A handler failure whose {@code getMessage()} throws is settled like any other failure: its claim
 * released and the message redelivered after the retry delay, or parked in a dead letter when it is
 * not retryable; never left unsettled to its lease and ack wait (then taken for a crashed attempt,
 * which {@code on-abandoned: dead-letter} parks).
 */
class UnreadableFailureMessageIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("test.failures", "1")
			.with("test.failure", "unreadable-message")
			.with("exactlyonce.consumers.worker.retry-delay", "1s")
			.with("exactlyonce.consumers.worker.on-abandoned", "dead-letter");
	}

	@Test
	void aFailureWhoseMessageCannotBeReadIsRetriedAfterTheRetryDelay() {
		Instance a = this.instances.start("a");
		a.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"), "t-1");

		await().atMost(Duration.ofSeconds(15))
			.until(() -> a.recorder().outcomes().contains(DeliveryOutcome.PROCESSED)
					|| a.recorder().outcomes().contains(DeliveryOutcome.DEAD_LETTERED));
		assertThat(a.recorder().outcomes()).containsExactly(DeliveryOutcome.RETRIED, DeliveryOutcome.PROCESSED);
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
		assertThat(this.instances.ledger().started()).last()
			.satisfies((second) -> assertThat(second.previousAttempt().abandoned()).isFalse());
	}

	@Test
	void aNonRetryableFailureWhoseMessageCannotBeReadIsDeadLettered() throws Exception {
		Instance a = this.instances.start("a",
				"exactlyonce.listener.non-retryable-exceptions=" + IllegalStateException.class.getName());
		a.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"), "t-1");

		await().atMost(Duration.ofSeconds(15)).until(() -> !a.recorder().outcomes().isEmpty());
		assertThat(a.recorder().outcomes()).containsExactly(DeliveryOutcome.DEAD_LETTERED);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker")).singleElement()
				.satisfies((letter) -> assertThat(letter.getHeaders().getFirst("Exactly-Once-Exception-Message"))
					.startsWith("(message unreadable"));
		}
	}

}

package dev.exactlyonce.it;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.MessageInfo;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A message runs out of deliveries while no instance listens for the server's MAX_DELIVERIES
 * advisory (here another client of the durable consumer nak'd it; in production the advisory can
 * reach an instance that is stopping). The server announces it only once and never delivers it
 * again, so instances started later must find it on the stream and settle it, once, even when two
 * of them look for it: dead-lettered, or requeued when its own last attempt was released by a
 * routine shutdown.
 */
class ExhaustedMessageSweepIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.max-deliver", "2");
	}

	@Test
	void messageExhaustedWhileNoInstanceListenedIsDeadLetteredOnceByInstancesStartedLater() throws Exception {
		Instance provisioning = this.instances.start("provisioning", "exactlyonce.listener.auto-startup=false");
		provisioning.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post",
				TaskAssignment.of("t-orphan"), "t-orphan");
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			exhaustWithAnotherClient(probe, 2);
			provisioning.context().close();

			Instance first = this.instances.start("first");
			Instance second = this.instances.start("second");

			await().atMost(Duration.ofSeconds(20))
				.until(() -> probe.stream("TASKS").getStreamState().getMsgCount() == 0
						&& first.recorder().outcomes().size() + second.recorder().outcomes().size() > 0);
			List<MessageInfo> deadLetters = probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker");
			assertThat(deadLetters).hasSize(1);
			assertThat(deadLetters.get(0).getHeaders().getFirst("Exactly-Once-Reason"))
				.isEqualTo("max deliveries (2) reached without a completed attempt");
			assertThat(Stream.concat(first.recorder().outcomes().stream(), second.recorder().outcomes().stream()))
				.containsExactly(DeliveryOutcome.DEAD_LETTERED);
		}
		assertThat(this.instances.ledger().started()).isEmpty();
	}

	@Test
	void messageWhoseOwnLastAttemptAShutdownReleasedIsRequeuedNotDeadLettered() throws Exception {
		this.instances.with("exactlyonce.listener.shutdown-timeout", "2s");
		Instance leaving = this.instances.start("leaving", "test.work-duration=30s");
		leaving.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"),
				"t-1");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-1") == 1);
		leaving.context().close();
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			exhaustWithAnotherClient(probe, 1);

			Instance staying = this.instances.start("staying");

			await().atMost(Duration.ofSeconds(20))
				.until(() -> staying.recorder().outcomes().contains(DeliveryOutcome.PROCESSED)
						&& probe.stream("TASKS").getStreamState().getMsgCount() == 0);
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.worker")).isEmpty();
			// the requeued copy may be processed before the exhausted one's RETRIED is recorded
			assertThat(staying.recorder().outcomes()).containsExactlyInAnyOrder(DeliveryOutcome.RETRIED,
					DeliveryOutcome.PROCESSED);
		}
		assertThat(this.instances.ledger().executionsOf("t-1")).isEqualTo(1);
	}

	/** Receives and naks the message as often as the consumer still delivers it, then pulls once more. */
	private static void exhaustWithAnotherClient(JetStreamProbe probe, int deliveriesLeft) throws Exception {
		JetStreamSubscription subscription = probe.connection()
			.jetStream()
			.subscribe(null, PullSubscribeOptions.fastBind("TASKS", "worker"));
		for (int delivery = 1; delivery <= deliveriesLeft; delivery++) {
			List<Message> messages = subscription.fetch(1, Duration.ofSeconds(5));
			assertThat(messages).hasSize(1);
			messages.get(0).nak();
		}
		assertThat(subscription.fetch(1, Duration.ofSeconds(1))).isEmpty();
		subscription.unsubscribe();
		await().atMost(Duration.ofSeconds(5)).until(() -> probe.drained("TASKS", "worker"));
		assertThat(probe.stream("TASKS").getStreamState().getMsgCount()).isEqualTo(1);
	}

}

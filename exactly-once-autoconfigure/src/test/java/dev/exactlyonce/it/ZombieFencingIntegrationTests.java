package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker whose lease ran out while it was cut off (a zombie) and was taken over by another
 * worker must not write its completion and must not ack.
 */
class ZombieFencingIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "2s")
			.with("exactlyonce.store.lease", "3s");
	}

	@Test
	void zombieCannotCompleteOrAckAfterTakeover() throws Exception {
		Instance zombie = this.instances.start("zombie");
		IdempotencyStore store = zombie.bean(IdempotencyStore.class);
		this.instances.ledger().close();
		zombie.bean(ExactlyOncePublisher.class).publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-z"),
				"t-z");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-z") == 1);

		zombie.storeFaults().blockRenewals();
		ClaimResult[] takeover = new ClaimResult[1];
		await().atMost(Duration.ofSeconds(15)).until(() -> {
			takeover[0] = store.tryClaim("worker:t-z", "successor", Duration.ofMinutes(1));
			return takeover[0] instanceof ClaimResult.Acquired;
		});
		ClaimResult.Acquired acquired = (ClaimResult.Acquired) takeover[0];
		assertThat(acquired.previousAttempt().abandoned()).isTrue();
		assertThat(acquired.previousAttempt().owner()).isEqualTo("zombie#1");

		this.instances.ledger().open();
		await().atMost(Duration.ofSeconds(10)).until(() -> zombie.recorder().outcomes().contains(DeliveryOutcome.CLAIM_LOST));

		IdempotencyRecord record = store.find("worker:t-z").orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(record.owner()).isEqualTo("successor");
		assertThat(record.token()).isEqualTo(acquired.claim().token());
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.stream("TASKS").getStreamState().getMsgCount()).as("the zombie did not ack").isEqualTo(1);
		}
		assertThat(zombie.recorder().outcomes()).doesNotContain(DeliveryOutcome.PROCESSED);
	}

}

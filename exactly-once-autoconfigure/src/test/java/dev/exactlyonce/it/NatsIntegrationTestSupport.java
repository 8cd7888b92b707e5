package dev.exactlyonce.it;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Gives each test its own nats-server (free port, temporary store directory) and a set of
 * application instances against it, closed after the test.
 */
abstract class NatsIntegrationTestSupport {

	protected NatsServerProcess nats;

	protected TestInstances instances;

	@BeforeEach
	void startNats() {
		this.nats = new NatsServerProcess().start();
		this.instances = new TestInstances(this.nats);
		configure(this.instances);
	}

	@AfterEach
	void stopNats() {
		this.instances.ledger().open();
		this.instances.close();
		this.nats.close();
	}

	/**
	 * Asserts that a task ran once, was completed in the store, acked once and never redelivered.
	 * @param instance the instance that handled it
	 * @param taskId the task (key of the default listener, namespace {@code worker})
	 */
	protected void assertProcessedOnceAndAckedOnce(Instance instance, String taskId) throws Exception {
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED)
						&& probe.drained("TASKS", "worker"));
			assertNoMessageDeliveredTwice(probe);
		}
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(instance.recorder().count(PipelinePoint.RECEIVED)).isEqualTo(1);
		assertThat(instance.recorder().count(PipelinePoint.ACKED)).isEqualTo(1);
		assertThat(this.instances.ledger().executionsOf(taskId)).isEqualTo(1);
		assertThat(instance.bean(IdempotencyStore.class).find("worker:" + taskId).orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
	}

	/**
	 * Asserts that no message of consumer {@code worker} was delivered more than once, to any
	 * instance, however it was settled: every message the instances received was at its first
	 * delivery, and the server made no delivery beyond those. Both counts survive the consumer
	 * being drained, unlike its {@code num_redelivered}.
	 * @param probe reads the consumer from the server
	 */
	protected void assertNoMessageDeliveredTwice(JetStreamProbe probe) throws Exception {
		Map<Long, Long> highest = this.instances.highestDeliveryCounts();
		assertThat(highest).as("highest delivery count of each message received, by stream sequence")
			.isNotEmpty()
			.allSatisfy((sequence, count) -> assertThat(count).as("deliveries of sequence " + sequence).isEqualTo(1));
		assertThat(probe.deliveries("TASKS", "worker")).as("deliveries the consumer made, redeliveries included")
			.isEqualTo(highest.size());
	}

	/**
	 * Sets properties every instance of the test class starts with.
	 * @param instances the instances to configure
	 */
	protected void configure(TestInstances instances) {
	}

}

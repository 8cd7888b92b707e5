package dev.exactlyonce.it;

import java.time.Duration;
import java.util.List;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.actuate.ExactlyOnceMeters;
import dev.exactlyonce.audit.ConsumerReconciliation;
import dev.exactlyonce.audit.Discrepancy;
import dev.exactlyonce.audit.ReconciliationReport;
import dev.exactlyonce.audit.Reconciliations;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every outcome of the pipeline increments exactly its meter, against a real nats-server, and the
 * reconciliation of the same traffic balances: one processed task (after one retry), one stream
 * duplicate, one idempotency duplicate, one dead letter.
 */
class MetricsIntegrationTests {

	private NatsServerProcess nats;

	private TestInstances instances;

	@BeforeEach
	void start() {
		this.nats = new NatsServerProcess().start();
		this.instances = new TestInstances(this.nats).with("test.key", "payload.taskId")
			.with("test.failures", 1)
			.with("exactlyonce.consumers.worker.retry-delay", "1s");
	}

	@AfterEach
	void stop() {
		this.instances.close();
		this.nats.close();
	}

	@Test
	void eachOutcomeIncrementsExactlyItsMeterAndTheBooksBalance() throws Exception {
		Instance instance = this.instances.start("a");
		MeterRegistry registry = instance.bean(MeterRegistry.class);
		assertThat(registry).isInstanceOf(SimpleMeterRegistry.class);
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		String subject = "agents.marketing.tasks.blog-post";

		publisher.publish(subject, TaskAssignment.of("A"), "a-1");
		await().atMost(Duration.ofSeconds(20))
			.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED));
		assertThat(publisher.publish(subject, TaskAssignment.of("A"), "a-1").duplicate()).isTrue();
		publisher.publish(subject, TaskAssignment.of("A"), "a-2");
		await().atMost(Duration.ofSeconds(20))
			.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.DUPLICATE));
		publisher.publish(subject, "not a task", "p-1");
		await().atMost(Duration.ofSeconds(20))
			.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.DEAD_LETTERED));

		assertThat(messages(registry, "processed")).isEqualTo(1);
		assertThat(messages(registry, "retried")).isEqualTo(1);
		assertThat(messages(registry, "duplicate")).isEqualTo(1);
		assertThat(messages(registry, "dead_lettered")).isEqualTo(1);
		assertThat(messages(registry, "in_progress_elsewhere")).isZero();
		assertThat(messages(registry, "claim_lost")).isZero();
		assertThat(messages(registry, "completion_unrecorded")).isZero();
		assertThat(counter(registry, ExactlyOnceMeters.CLAIMS_LOST)).isZero();
		assertThat(registry.get(ExactlyOnceMeters.PUBLISH).tag("outcome", "stored").counter().count()).isEqualTo(3);
		assertThat(registry.get(ExactlyOnceMeters.PUBLISH).tag("outcome", "duplicate").counter().count()).isEqualTo(1);
		assertThat(timer(registry, ExactlyOnceMeters.HANDLER_DURATION).count()).isEqualTo(2);
		assertThat(timer(registry, ExactlyOnceMeters.ACK_LATENCY).count()).isEqualTo(2);
		assertThat(storeOperations(registry, "claim")).isEqualTo(3);
		assertThat(storeOperations(registry, "complete")).isEqualTo(1);
		assertThat(storeOperations(registry, "release")).isEqualTo(1);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> registry.get(ExactlyOnceMeters.CONSUMER_PENDING).tag("consumer", "worker").gauge().value() == 0
					&& registry.get(ExactlyOnceMeters.CONSUMER_ACK_PENDING).gauge().value() == 0);

		ReconciliationReport report = instance.bean(Reconciliations.class).run(Duration.ofHours(1));
		assertThat(report.error()).isNull();
		ConsumerReconciliation worker = report.consumers().get(0);
		assertThat(worker.consumer()).isEqualTo("worker");
		assertThat(worker.published()).isEqualTo(3);
		assertThat(worker.completed()).isEqualTo(1);
		assertThat(worker.deadLettered()).isEqualTo(1);
		assertThat(worker.duplicatesCaughtByStreamDedup()).isEqualTo(1);
		assertThat(worker.duplicatesCaughtByIdempotencyCheck()).isEqualTo(1);
		assertThat(worker.duplicatesReachedExecution()).isZero();
		assertThat(worker.discrepancies()).extracting(Discrepancy::type).containsExactly(Discrepancy.Type.DEAD_LETTERED);
		assertThat(worker.balanced()).isTrue();
		assertThat(registry.get(ExactlyOnceMeters.RECONCILIATION_MESSAGES).tag("state", "completed").gauge().value())
			.isEqualTo(1);
		assertThat(registry.get(ExactlyOnceMeters.RECONCILIATION_DISCREPANCIES)
			.tag("type", "acked_without_record")
			.gauge()
			.value()).isZero();
	}

	private static double messages(MeterRegistry registry, String outcome) {
		return registry.get(ExactlyOnceMeters.MESSAGES)
			.tags("stream", "TASKS", "consumer", "worker", "outcome", outcome)
			.counter()
			.count();
	}

	private static double counter(MeterRegistry registry, String name) {
		List<Counter> counters = List.copyOf(registry.get(name).counters());
		return counters.stream().mapToDouble(Counter::count).sum();
	}

	private static Timer timer(MeterRegistry registry, String name) {
		return registry.get(name).tags("stream", "TASKS", "consumer", "worker").timer();
	}

	private static long storeOperations(MeterRegistry registry, String operation) {
		return registry.get(ExactlyOnceMeters.STORE_LATENCY)
			.tags("store", "nats-kv", "op", operation)
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

}

package dev.exactlyonce.it;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.nats.client.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.audit.ConsumerReconciliation;
import dev.exactlyonce.audit.DeadLetters;
import dev.exactlyonce.audit.Discrepancy;
import dev.exactlyonce.audit.MessageKeys;
import dev.exactlyonce.audit.PipelineTally;
import dev.exactlyonce.audit.Reconciler;
import dev.exactlyonce.audit.ReconciliationReport;
import dev.exactlyonce.audit.ReconciliationTable;
import dev.exactlyonce.autoconfigure.ExactlyOnceConsumers;
import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.nats.RawStreamReader;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreKeyEncoder;
import dev.exactlyonce.store.natskv.NatsKvIdempotencyStore;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * The reconciliation finds what breaks the books on a WorkQueue stream: a message acked whose
 * completion record is gone, a completed message never acked (the process died in between), and a
 * claim whose holder died.
 */
class ReconciliationIntegrationTests {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private NatsServerProcess nats;

	private TestInstances instances;

	@BeforeEach
	void start() {
		this.nats = new NatsServerProcess().start();
		this.instances = new TestInstances(this.nats).with("exactlyonce.consumers.worker.ack-wait", "2s");
	}

	@AfterEach
	void stop() {
		this.instances.close();
		this.nats.close();
	}

	@Test
	void aDuplicatePublishCountsOnlyForTheConsumerWhoseSubjectItWasPublishedTo() throws Exception {
		Instance instance = this.instances.with("test.steps.enabled", "true")
			.with("exactlyonce.consumers.steps.stream", "TASKS")
			.with("exactlyonce.consumers.steps.filter-subject", "agents.steps.tasks.>")
			.start("a");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1");
		assertThat(publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1").duplicate()).isTrue();
		await().atMost(Duration.ofSeconds(20)).until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED));

		ReconciliationReport report = instance.bean(Reconciler.class).reconcile(Duration.ofHours(1));

		assertThat(report.consumers()).extracting(ConsumerReconciliation::consumer,
				ConsumerReconciliation::duplicatesCaughtByStreamDedup)
			.containsExactlyInAnyOrder(tuple("worker", 1L), tuple("steps", 0L));
	}

	@Test
	void listsAckedWithoutRecordCompletedNotAckedAndStuckClaims() throws Exception {
		Instance instance = this.instances.start("a");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		for (String task : List.of("t-1", "t-2", "t-3")) {
			publisher.publish(SUBJECT, TaskAssignment.of(task), task);
		}
		await().atMost(Duration.ofSeconds(20))
			.until(() -> instance.recorder().outcomes().stream().filter(DeliveryOutcome.PROCESSED::equals).count() == 3);
		instance.recorder().haltOnceAt(PipelinePoint.COMPLETED);
		publisher.publish(SUBJECT, TaskAssignment.of("t-4"), "t-4");
		IdempotencyStore appStore = instance.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> appStore.find("worker:t-4").map((r) -> r.state() == RecordState.COMPLETED).orElse(false));
		Map<String, ConsumerSettings> consumers = instance.bean(ExactlyOnceConsumers.class).settings();
		instance.context().close();

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			KeyValue bucket = probe.connection().keyValue("exactly-once-idempotency");
			bucket.delete(new StoreKeyEncoder(512).encode("worker:t-2"));
			IdempotencyStore store = new NatsKvIdempotencyStore(bucket, bucket,
					new ClaimRules(Clock.systemUTC(), Duration.ofHours(72)));
			store.tryClaim("worker:stuck", "dead-instance:42", Duration.ofMillis(1));
			Reconciler reconciler = new Reconciler(probe.connection(),
					new RawStreamReader(probe.connection(), Duration.ofSeconds(5)), consumers, store,
					new DeadLetters(probe.connection(), "DEAD_LETTERS"), new PipelineTally(Clock.systemUTC()), 1000,
					MessageKeys.NONE, Clock.systemUTC());

			ReconciliationReport report = await().atMost(Duration.ofSeconds(20))
				.until(() -> reconciler.reconcile(Duration.ofHours(1)), (r) -> types(r.consumers().get(0))
					.contains(Discrepancy.Type.COMPLETED_NOT_ACKED));

			ConsumerReconciliation worker = report.consumers().get(0);
			assertThat(worker.published()).isEqualTo(4);
			assertThat(worker.completed()).isEqualTo(3);
			assertThat(worker.unfinished()).isZero();
			assertThat(worker.discrepancies()).extracting(Discrepancy::type, Discrepancy::streamSequence, Discrepancy::key)
				.containsExactlyInAnyOrder(
						org.assertj.core.groups.Tuple.tuple(Discrepancy.Type.ACKED_WITHOUT_RECORD, 2L, null),
						org.assertj.core.groups.Tuple.tuple(Discrepancy.Type.COMPLETED_NOT_ACKED, 4L, "worker:t-4"),
						org.assertj.core.groups.Tuple.tuple(Discrepancy.Type.STUCK_CLAIM, null, "worker:stuck"));
			assertThat(worker.balanced()).isFalse();

			IdempotencyStore scannedTwice = new NatsKvIdempotencyStore(bucket, bucket,
					new ClaimRules(Clock.systemUTC(), Duration.ofHours(72))) {

				@Override
				public void scan(Consumer<IdempotencyRecord> action) {
					super.scan(action);
					super.scan(action);
				}

			};
			ConsumerReconciliation offeredTwice = new Reconciler(probe.connection(),
					new RawStreamReader(probe.connection(), Duration.ofSeconds(5)), consumers, scannedTwice,
					new DeadLetters(probe.connection(), "DEAD_LETTERS"), new PipelineTally(Clock.systemUTC()), 1000,
					MessageKeys.NONE, Clock.systemUTC())
				.reconcile(Duration.ofHours(1))
				.consumers()
				.get(0);
			assertThat(offeredTwice.published()).isEqualTo(4);
			assertThat(offeredTwice.completed()).as("a record offered twice counts once").isEqualTo(3);
			assertThat(offeredTwice.discrepancies())
				.extracting(Discrepancy::type, Discrepancy::streamSequence, Discrepancy::key)
				.containsExactlyElementsOf(worker.discrepancies()
					.stream()
					.map((found) -> org.assertj.core.groups.Tuple.tuple(found.type(), found.streamSequence(), found.key()))
					.toList());
			String table = ReconciliationTable.render(List.of(report), ZoneOffset.UTC);
			assertThat(table).contains("| window ").contains("dups reaching execution").contains("| worker ")
				.contains("published counts messages, completed counts tasks");
			System.out.println(table);
		}
	}

	private static List<Discrepancy.Type> types(ConsumerReconciliation reconciliation) {
		return reconciliation.discrepancies().stream().map(Discrepancy::type).toList();
	}

}

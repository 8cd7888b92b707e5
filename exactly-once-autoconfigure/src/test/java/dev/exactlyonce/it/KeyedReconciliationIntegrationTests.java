package dev.exactlyonce.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.nats.client.KeyValue;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.audit.ConsumerReconciliation;
import dev.exactlyonce.audit.DeadLetters;
import dev.exactlyonce.audit.Discrepancy;
import dev.exactlyonce.audit.PipelineTally;
import dev.exactlyonce.audit.Reconciler;
import dev.exactlyonce.audit.ReconciliationReport;
import dev.exactlyonce.audit.Reconciliations;
import dev.exactlyonce.autoconfigure.ExactlyOnceConsumers;
import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.nats.RawStreamReader;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StoreKeyEncoder;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With a key expression, every task published twice under different message ids: the copy acked
 * as a duplicate of a completed key is no discrepancy, whichever instance acked it and whichever
 * instance reconciles (on a Limits stream by its key, on a WorkQueue stream, which removes it, by
 * the sequences the key's record keeps of its duplicate copies); a copy whose key has no record
 * still is.
 */
class KeyedReconciliationIntegrationTests {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private static final List<String> TASKS = List.of("t-1", "t-2", "t-3");

	private NatsServerProcess nats;

	private TestInstances instances;

	@BeforeEach
	void start() {
		this.nats = new NatsServerProcess().start();
		this.instances = new TestInstances(this.nats).with("exactlyonce.consumers.worker.ack-wait", "2s")
			.with("test.key", "payload.taskId");
	}

	@AfterEach
	void stop() {
		this.instances.close();
		this.nats.close();
	}

	@Test
	void copiesAckedAsDuplicatesOnALimitsStreamAreNoDiscrepancyForAnotherInstance() {
		Instance instance = this.instances.start("a", "exactlyonce.streams.TASKS.retention=limits");
		publishEveryTaskTwice(instance);

		ConsumerReconciliation worker = reconcileAsAnotherInstance(instance);

		assertThat(worker.discrepancies()).isEmpty();
		assertThat(worker.published()).isEqualTo(5);
		assertThat(worker.completed()).isEqualTo(3);
		assertThat(worker.balanced()).isTrue();
	}

	@Test
	void copiesThisInstanceAckedOnAWorkQueueStreamAreNoDiscrepancy() {
		Instance instance = this.instances.start("a");
		publishEveryTaskTwice(instance);

		ConsumerReconciliation worker = instance.bean(Reconciliations.class).run(Duration.ofHours(1))
			.consumers()
			.get(0);

		assertThat(worker.discrepancies()).isEmpty();
		assertThat(worker.published()).isEqualTo(5);
	}

	@Test
	void copiesAckedAsDuplicatesByTwoInstancesOnAWorkQueueStreamAreNoDiscrepancy() {
		Instance first = this.instances.start("a");
		Instance second = this.instances.start("b");
		publishEveryTaskTwice(first, second);

		ConsumerReconciliation onTheFirst = first.bean(Reconciliations.class).run(Duration.ofHours(1))
			.consumers()
			.get(0);
		ConsumerReconciliation elsewhere = reconcileAsAnotherInstance(second);

		assertThat(onTheFirst.discrepancies()).isEmpty();
		assertThat(elsewhere.discrepancies()).isEmpty();
		assertThat(elsewhere.completed()).isEqualTo(3);
		assertThat(elsewhere.balanced()).isTrue();
	}

	@Test
	void copiesOfAKeyWhoseRecordIsGoneFromAWorkQueueStreamAreStillReportedWithTheirSequences() throws Exception {
		Instance first = this.instances.start("a");
		Instance second = this.instances.start("b");
		publishEveryTaskTwice(first, second);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			KeyValue bucket = probe.connection().keyValue("exactly-once-idempotency");
			bucket.delete(new StoreKeyEncoder(512).encode("worker:t-2"));
		}

		ConsumerReconciliation worker = reconcileAsAnotherInstance(first);

		assertThat(worker.discrepancies()).extracting(Discrepancy::type, Discrepancy::streamSequence)
			.containsExactlyInAnyOrder(Tuple.tuple(Discrepancy.Type.ACKED_WITHOUT_RECORD, 3L),
					Tuple.tuple(Discrepancy.Type.ACKED_WITHOUT_RECORD, 4L));
	}

	@Test
	void aCopyOfADeadLetteredKeyTerminatedOnAWorkQueueStreamIsNoDiscrepancy() {
		Instance instance = this.instances.start("a", "test.always-failing=t-9", "test.failure=illegal-argument",
				"exactlyonce.consumers.worker.non-retryable-exceptions=" + IllegalArgumentException.class.getName());
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1");
		publisher.publish(SUBJECT, TaskAssignment.of("t-9"), "t-9");
		await().atMost(Duration.ofSeconds(20))
			.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.DEAD_LETTERED));
		publisher.publish(SUBJECT, TaskAssignment.of("t-9"), "t-9-copy");
		publisher.publish(SUBJECT, TaskAssignment.of("t-2"), "t-2");
		await().atMost(Duration.ofSeconds(20))
			.until(() -> count(DeliveryOutcome.PROCESSED, instance) == 2
					&& count(DeliveryOutcome.ALREADY_DEAD_LETTERED, instance) == 1);

		ConsumerReconciliation worker = reconcileAsAnotherInstance(instance);

		assertThat(worker.discrepancies()).extracting(Discrepancy::type, Discrepancy::streamSequence)
			.containsExactly(Tuple.tuple(Discrepancy.Type.DEAD_LETTERED, 2L));
		assertThat(worker.published()).isEqualTo(4);
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aCopyWhoseDuplicateNoteFailsIsAckedAnywayAndOnlyCostsAFinding(CapturedOutput output) {
		Instance instance = this.instances.start("a");
		instance.storeFaults().failDuplicateNotes();
		publishEveryTaskTwice(instance);

		ConsumerReconciliation worker = reconcileAsAnotherInstance(instance);

		assertThat(worker.discrepancies()).isNotEmpty()
			.extracting(Discrepancy::type)
			.containsOnly(Discrepancy.Type.ACKED_WITHOUT_RECORD);
		assertThat(output).contains("Could not note the message at stream 'TASKS', consumer 'worker'")
			.doesNotContain("\"taskId\"");
	}

	@Test
	void aMessageWhoseHeadersTheJavaClientCannotDecodeDoesNotBreakReconciliation() throws Exception {
		Instance instance = this.instances.start("a");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-1"), "t-1");
		try (RawNatsPublisher raw = new RawNatsPublisher(this.nats.url())) {
			raw.publish("agents.devops.tasks.deploy", RawNatsPublisher.headers("Nats-Msg-Id", "déploiement-1"),
					"{}".getBytes(StandardCharsets.UTF_8));
			raw.flush();
		}
		publisher.publish(SUBJECT, TaskAssignment.of("t-2"), "t-2");
		await().atMost(Duration.ofSeconds(20)).until(() -> this.instances.ledger().executions().size() == 2
				&& instance.recorder().outcomes().size() == 2);

		ReconciliationReport report = instance.bean(Reconciliations.class).run(Duration.ofHours(1));

		assertThat(report.error()).isNull();
		ConsumerReconciliation worker = report.consumers().get(0);
		assertThat(worker.discrepancies()).isEmpty();
		assertThat(worker.published()).isEqualTo(2);
		assertThat(worker.completed()).isEqualTo(2);
	}

	@Test
	void ackedCopiesOfAKeyWhoseRecordIsGoneAreStillReported() throws Exception {
		Instance instance = this.instances.start("web", "exactlyonce.streams.TASKS.retention=limits",
				"spring.main.web-application-type=servlet", "server.port=0",
				"management.endpoints.web.exposure.include=exactlyonce",
				"management.endpoint.exactlyonce.access=unrestricted");
		publishEveryTaskTwice(instance);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			KeyValue bucket = probe.connection().keyValue("exactly-once-idempotency");
			bucket.delete(new StoreKeyEncoder(512).encode("worker:t-2"));
		}

		ConsumerReconciliation worker = reconcileAsAnotherInstance(instance);

		assertThat(worker.discrepancies()).extracting(Discrepancy::type, Discrepancy::streamSequence, Discrepancy::key)
			.containsExactlyInAnyOrder(Tuple.tuple(Discrepancy.Type.ACKED_WITHOUT_RECORD, 3L, "worker:t-2"),
					Tuple.tuple(Discrepancy.Type.ACKED_WITHOUT_RECORD, 4L, "worker:t-2"));
		JsonNode finding = reconcileThroughTheEndpoint(instance).get("consumers").get(0).get("discrepancies").get(0);
		assertThat(finding.get("type").asString()).isEqualTo("ACKED_WITHOUT_RECORD");
		assertThat(finding.get("key").asString()).isEqualTo("worker:t-2");
	}

	/**
	 * Publishes t-1, copy, t-2, copy, t-3, copy (sequences 1 to 6) through the first instance and
	 * waits until the instances settled all of them.
	 */
	private void publishEveryTaskTwice(Instance... instances) {
		ExactlyOncePublisher publisher = instances[0].bean(ExactlyOncePublisher.class);
		for (String task : TASKS) {
			publisher.publish(SUBJECT, TaskAssignment.of(task), task);
			publisher.publish(SUBJECT, TaskAssignment.of(task), task + "-copy");
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> count(DeliveryOutcome.PROCESSED, instances) == 3
					&& count(DeliveryOutcome.DUPLICATE, instances) == 3);
		assertThat(this.instances.ledger().executions()).hasSize(3);
	}

	private static long count(DeliveryOutcome outcome, Instance... instances) {
		return Arrays.stream(instances)
			.mapToLong((instance) -> instance.recorder().outcomes().stream().filter(outcome::equals).count())
			.sum();
	}

	/** A reconciler that saw none of the duplicates: a fresh tally, as on another instance. */
	private ConsumerReconciliation reconcileAsAnotherInstance(Instance instance) {
		Map<String, ConsumerSettings> consumers = instance.bean(ExactlyOnceConsumers.class).settings();
		io.nats.client.Connection connection = instance.bean(io.nats.client.Connection.class);
		Reconciler reconciler = new Reconciler(connection, new RawStreamReader(connection, Duration.ofSeconds(5)),
				consumers, instance.bean(IdempotencyStore.class), new DeadLetters(connection, "DEAD_LETTERS"),
				new PipelineTally(Clock.systemUTC()), 1000, instance.bean(ExactlyOnceListenerRegistry.class)::storeKey,
				Clock.systemUTC());
		return reconciler.reconcile(Duration.ofHours(1)).consumers().get(0);
	}

	private JsonNode reconcileThroughTheEndpoint(Instance instance) throws Exception {
		String url = "http://127.0.0.1:" + instance.context().getEnvironment().getProperty("local.server.port")
				+ "/actuator/exactlyonce";
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create(url))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{\"window\":\"1h\"}"))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);
		return JsonMapper.builder().build().readTree(response.body());
	}

}

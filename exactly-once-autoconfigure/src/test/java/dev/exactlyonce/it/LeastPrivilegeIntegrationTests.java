package dev.exactlyonce.it;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.actuate.ExactlyOnceEndpoint;
import dev.exactlyonce.actuate.ExactlyOnceHealthIndicator;
import dev.exactlyonce.audit.ReconciliationReport;
import dev.exactlyonce.audit.Reconciliations;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.DeadLetterView;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * The starter needs no more than the permission block docs/security.md documents (section "Least
 * privilege"): a NATS user allowed exactly that runs the whole pipeline — provisioning, publish,
 * claim, completion, dead letters (poison and last delivery), discarding a dead letter,
 * reconciliation, health and the endpoint — and the server records no permission violation. A permission missing from it fails
 * start-up at once, naming the subject and what to allow.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeastPrivilegeIntegrationTests {

	/**
	 * The worker block docs/security.md documents (provisioning.mode=validate), read from the page, for stream
	 * TASKS, consumer worker, the default bucket, the tally bucket and dead letters: no stream, bucket or
	 * durable consumer may be created or changed.
	 */
	static final String WORKER_PERMISSIONS = SecurityDocumentation.workerPermissions();

	/**
	 * The provisioner block docs/security.md documents: the worker's, plus creating and updating the streams,
	 * the buckets and the durable consumer (a deploy job, or the app with provisioning.mode
	 * create-or-update).
	 */
	static final String PROVISIONER_PERMISSIONS = SecurityDocumentation.provisionerPermissions();

	@RegisterExtension
	final ClosedAfterEach resources = new ClosedAfterEach();

	@Test
	void theDocumentedWorkerPermissionsAreEnoughForTheWholePipelineOnceProvisioned() throws Exception {
		NatsServerProcess nats = server(WORKER_PERMISSIONS);
		TestInstances instances = instances(nats);
		instances.with("exactlyonce.consumers.worker.max-deliver", "2");
		provision(instances);
		Instance instance = instances.start("a", "exactlyonce.nats.username=worker", "exactlyonce.nats.password=worker-pw",
				"exactlyonce.provisioning.mode=validate", "test.always-failing=t-lp-failing",
				"exactlyonce.consumers.worker.retry-delay=200ms", "management.endpoints.web.exposure.include=health,exactlyonce",
				"management.endpoint.exactlyonce.access=unrestricted");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-lp-1"), "t-lp-1");
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-lp-failing"), "t-lp-failing");
		try (JetStreamProbe admin = new JetStreamProbe(adminUrl(nats))) {
			admin.connection().jetStream().publish(NatsMessage.builder().subject("agents.marketing.tasks.blog-post")
				.data("{\"taskId\":\"no-id\"}".getBytes()).build());
			await().atMost(Duration.ofSeconds(30))
				.until(() -> admin.stream("DEAD_LETTERS").getStreamState().getMsgCount() == 2
						&& admin.drained("TASKS", "worker"));
			assertThat(instance.bean(IdempotencyStore.class).find("worker:t-lp-1").orElseThrow().state())
				.isEqualTo(RecordState.COMPLETED);
			assertThat(instances.ledger().executionsOf("t-lp-1")).isEqualTo(1);
			DeadLetterOperations deadLetters = instance.bean(DeadLetterOperations.class);
			DeadLetterView failing = deadLetters.list("worker", 1, 10).stream()
				.filter((letter) -> "t-lp-failing".equals(letter.key())).findFirst().orElseThrow();
			deadLetters.discard("worker", failing.sequence(), "operator", "customer cancelled");
			assertThat(admin.stream("DEAD_LETTERS").getStreamState().getMsgCount()).isEqualTo(1);
		}
		ReconciliationReport report = instance.bean(Reconciliations.class).run();
		assertThat(report.consumers()).isNotEmpty();
		assertThat(instance.bean(ExactlyOnceHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		assertThat(instance.bean(ExactlyOnceEndpoint.class).exactlyOnce()).isNotNull();
		assertThat(violations(nats)).isEmpty();
	}

	@Test
	void theWorkerCannotWidenItsStreamToReadOtherSubjectsNorShortenItsRetention() throws Exception {
		NatsServerProcess nats = server(WORKER_PERMISSIONS);
		provision(instances(nats));
		try (Connection worker = Nats.connect(Options.builder().server(workerUrl(nats))
			.connectionTimeout(Duration.ofSeconds(5)).build())) {
			JetStreamManagement management = worker.jetStreamManagement(JetStreamOptions.builder()
				.requestTimeout(Duration.ofSeconds(2)).build());
			StreamConfiguration declared = management.getStreamInfo("TASKS").getConfiguration();
			StreamConfiguration widened = StreamConfiguration.builder(declared)
				.subjects("agents.*.tasks.>", "payments.>").build();
			StreamConfiguration shortened = StreamConfiguration.builder(declared).maxAge(Duration.ofSeconds(1)).build();

			assertThatException().isThrownBy(() -> management.updateStream(widened));
			assertThatException().isThrownBy(() -> management.updateStream(shortened));
			assertThatException().isThrownBy(() -> management.addStream(StreamConfiguration.builder()
				.name("CAPTURE").subjects("payments.>").build()));
		}
		try (JetStreamProbe admin = new JetStreamProbe(adminUrl(nats))) {
			StreamConfiguration kept = admin.stream("TASKS").getConfiguration();
			assertThat(kept.getSubjects()).containsExactly("agents.*.tasks.>");
			assertThat(kept.getMaxAge()).isNotEqualTo(Duration.ofSeconds(1));
			assertThat(admin.connection().jetStreamManagement().getStreamNames()).doesNotContain("CAPTURE");
		}
		assertThat(violations(nats)).isNotEmpty()
			.allSatisfy((line) -> assertThat(line).containsAnyOf("$JS.API.STREAM.UPDATE.TASKS",
					"$JS.API.STREAM.CREATE.CAPTURE"));
	}

	@Test
	void aWorkerLeftInCreateOrUpdateModeFailsStartUpNamingTheProvisioningMode() throws Exception {
		NatsServerProcess nats = server(WORKER_PERMISSIONS);
		TestInstances instances = instances(nats);
		Throwable failure = catchThrowable(() -> instances.start("a", "exactlyonce.nats.username=worker",
				"exactlyonce.nats.password=worker-pw"));
		ExactlyOnceConfigurationException cause = rootConfigurationFailure(failure);
		assertThat(cause.getProblemSentence()).contains("may not publish to \"$JS.API.STREAM.CREATE.");
		assertThat(cause.getAction()).contains("set exactlyonce.provisioning.mode=validate");
	}

	@Test
	void aMissingPublishPermissionFailsStartUpNamingTheSubjectAndTheFix() throws Exception {
		long started = System.nanoTime();
		ExactlyOnceConfigurationException cause = startUpFailureWithout("\"$JS.API.STREAM.INFO.TASKS\",");
		assertThat(cause.getProblemSentence()).contains("may not publish to \"$JS.API.STREAM.INFO.TASKS\"");
		assertThat(cause.getAction()).contains("\"$JS.API.STREAM.INFO.TASKS\"").contains("publish").contains("allow")
			.contains("Least privilege");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("no 30 s of retries").isLessThan(Duration.ofSeconds(20));
	}

	@Test
	void aMissingInboxSubscribePermissionFailsStartUpNamingThePatternToAllow() throws Exception {
		ExactlyOnceConfigurationException cause = startUpFailureWithout("\"_INBOX.>\", ");
		assertThat(cause.getProblemSentence()).contains("may not subscribe to \"_INBOX.");
		assertThat(cause.getAction()).contains("\"_INBOX.>\"").contains("subscribe");
	}

	@Test
	void aMissingTallyBucketPermissionFailsStartUpRatherThanEveryFlushOfTheMonthlyTable() throws Exception {
		ExactlyOnceConfigurationException cause = startUpFailureWithout(
				"\"$JS.API.STREAM.INFO.KV_EXACTLYONCE_TALLIES\",");
		assertThat(cause.getProblemSentence()).contains("monthly tally bucket 'EXACTLYONCE_TALLIES'")
			.contains("exactlyonce.operations.tally-bucket")
			.contains("may not publish to \"$JS.API.STREAM.INFO.KV_EXACTLYONCE_TALLIES\"");
		assertThat(cause.getAction()).contains("\"$JS.API.STREAM.INFO.KV_EXACTLYONCE_TALLIES\"").contains("publish");
	}

	@Test
	void aRefusedPullTakesHealthDownNamingTheSubjectAndTheFix(CapturedOutput output) {
		String pull = "\"$JS.API.CONSUMER.MSG.NEXT.TASKS.worker\",";
		assertThat(WORKER_PERMISSIONS).contains(pull);
		TestInstances instances = instances(server(WORKER_PERMISSIONS.replace(pull, "")));
		provision(instances);
		Instance instance = instances.start("a", "exactlyonce.nats.username=worker",
				"exactlyonce.nats.password=worker-pw", "exactlyonce.provisioning.mode=validate");

		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			Health health = instance.bean(ExactlyOnceHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(String.valueOf(health.getDetails().get("problems")))
				.contains("may not publish to \"$JS.API.CONSUMER.MSG.NEXT.TASKS.worker\"")
				.contains("Add \"$JS.API.CONSUMER.MSG.NEXT.TASKS.worker\" to the publish allow list")
				.contains("Least privilege");
		});
		assertThat(output.getAll())
			.containsOnlyOnce("may not publish to \"$JS.API.CONSUMER.MSG.NEXT.TASKS.worker\"; Add");
	}

	@Test
	void aRefusedDeadLetterTakesHealthDownAndKeepsTheMessageOnItsStream() throws Exception {
		String deadLetters = "\"deadletter.>\",";
		assertThat(WORKER_PERMISSIONS).contains(deadLetters);
		NatsServerProcess nats = server(WORKER_PERMISSIONS.replace(deadLetters, ""));
		TestInstances instances = instances(nats);
		provision(instances);
		Instance instance = instances.start("a", "exactlyonce.nats.username=worker",
				"exactlyonce.nats.password=worker-pw", "exactlyonce.provisioning.mode=validate");
		try (JetStreamProbe admin = new JetStreamProbe(adminUrl(nats))) {
			admin.connection().jetStream().publish(NatsMessage.builder().subject("agents.marketing.tasks.blog-post")
				.data("{\"taskId\":\"no-id\"}".getBytes()).build());

			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				Health health = instance.bean(ExactlyOnceHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(String.valueOf(health.getDetails().get("problems")))
					.contains("may not publish to \"deadletter.TASKS.worker\"");
			});
			assertThat(admin.stream("TASKS").getStreamState().getMsgCount()).as("the poison message, kept").isOne();
			assertThat(admin.stream("DEAD_LETTERS").getStreamState().getMsgCount()).isZero();
		}
	}

	private ExactlyOnceConfigurationException startUpFailureWithout(String permission) {
		assertThat(WORKER_PERMISSIONS).contains(permission);
		TestInstances instances = instances(server(WORKER_PERMISSIONS.replace(permission, "")));
		provision(instances);
		return rootConfigurationFailure(catchThrowable(() -> instances.start("a", "exactlyonce.nats.username=worker",
				"exactlyonce.nats.password=worker-pw", "exactlyonce.provisioning.mode=validate")));
	}

	/** Provisions streams, buckets and the consumer as a deploy job would: as the provisioner, then stops. */
	static void provision(TestInstances instances) {
		Instance job = instances.start("deploy-job", "exactlyonce.nats.username=provisioner",
				"exactlyonce.nats.password=provisioner-pw", "exactlyonce.listener.auto-startup=false");
		job.context().close();
	}

	static ExactlyOnceConfigurationException rootConfigurationFailure(Throwable failure) {
		assertThat(failure).as("start-up failure").isNotNull();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof ExactlyOnceConfigurationException configuration) {
				return configuration;
			}
		}
		throw new AssertionError("no ExactlyOnceConfigurationException in " + failure);
	}

	static NatsServerProcess server(String workerPermissions) {
		return NatsServerProcess.withConfiguration("authorization { users = [\n"
				+ "  { user: admin, password: admin-pw }\n"
				+ "  { user: provisioner, password: provisioner-pw, " + PROVISIONER_PERMISSIONS + " }\n"
				+ "  { user: worker, password: worker-pw, " + workerPermissions + " }\n"
				+ "] }\n").start();
	}

	static String workerUrl(NatsServerProcess nats) {
		return "nats://worker:worker-pw@127.0.0.1:" + nats.port();
	}

	static String adminUrl(NatsServerProcess nats) {
		return "nats://admin:admin-pw@127.0.0.1:" + nats.port();
	}

	static List<String> violations(NatsServerProcess nats) throws IOException {
		return Files.readAllLines(nats.directory().resolve("nats-server.log"))
			.stream()
			.filter((line) -> line.contains("Violation"))
			.toList();
	}

	TestInstances instances(NatsServerProcess nats) {
		this.resources.add(nats);
		TestInstances instances = new TestInstances(nats);
		this.resources.add(instances);
		return instances;
	}

}

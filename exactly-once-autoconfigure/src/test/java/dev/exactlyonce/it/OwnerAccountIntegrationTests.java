package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Status;

import dev.exactlyonce.actuate.ExactlyOnceHealthIndicator;
import dev.exactlyonce.audit.ReconciliationReport;
import dev.exactlyonce.audit.Reconciliations;
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
import static org.awaitility.Awaitility.await;

/**
 * docs/security.md's owner account: the streams, buckets and consumer in an account {@code OWNER}
 * (with the provisioner), the worker, holding the worker block verbatim, in an account
 * {@code WORKERS} without JetStream that imports every subject of that block's publish allow list as
 * a service and every subject of its subscribe allow list as a stream (the configuration is built
 * from the block by that rule). The whole pipeline runs as that worker, and the reply subjects that
 * delete and reconfigure streams inside one account ({@link WorkerPermissionAttacksIntegrationTests})
 * reach no JetStream API: a reply crossing an import is one the server makes up in {@code OWNER}, and
 * the answer lands in {@code WORKERS}, whose only services are the imported ones. The worker has reply
 * inboxes of its own ({@code exactlyonce.nats.inbox-prefix=_INBOX_WORKERS}, the block's {@code _INBOX.>}
 * replaced by {@code _INBOX_WORKERS.>}), so the owner's own replies stay in {@code OWNER}.
 */
class OwnerAccountIntegrationTests {

	/** The worker's reply inbox prefix, the only inbox subject {@code OWNER} exports. */
	static final String WORKER_INBOX_PREFIX = "_INBOX_WORKERS";

	@RegisterExtension
	final ClosedAfterEach resources = new ClosedAfterEach();

	@Test
	void theWholePipelineRunsAsAWorkerInAnAccountWithoutJetStream() throws Exception {
		NatsServerProcess nats = server();
		TestInstances instances = instances(nats);
		instances.with("exactlyonce.consumers.worker.max-deliver", "2");
		LeastPrivilegeIntegrationTests.provision(instances);
		Instance instance = instances.start("a", "exactlyonce.nats.username=worker", "exactlyonce.nats.password=worker-pw",
				"exactlyonce.nats.inbox-prefix=" + WORKER_INBOX_PREFIX, "exactlyonce.provisioning.mode=validate", "test.always-failing=t-lp-failing",
				"exactlyonce.consumers.worker.retry-delay=200ms");
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
		assertThat(LeastPrivilegeIntegrationTests.violations(nats)).isEmpty();
	}

	@Test
	void theWorkersReplySubjectsReachNoJetStreamApiOfTheOwner() throws Exception {
		NatsServerProcess nats = server();
		LeastPrivilegeIntegrationTests.provision(instances(nats));
		Connection admin = connect(adminUrl(nats), "_INBOX");
		admin.keyValue("exactly-once-idempotency").put("other-consumer=3At-1", "completed");
		Connection worker = connect(LeastPrivilegeIntegrationTests.workerUrl(nats), WORKER_INBOX_PREFIX);

		worker.publish("$JS.API.CONSUMER.MSG.NEXT.TASKS.worker", "$JS.API.STREAM.DELETE.KV_exactly-once-idempotency",
				"{\"batch\":1,\"no_wait\":true}".getBytes(StandardCharsets.UTF_8));
		admin.jetStream().publish("agents.marketing.tasks.blog-post", "{\"taskId\":\"t-1\"}".getBytes());
		worker.publish("$JS.API.CONSUMER.MSG.NEXT.TASKS.worker", "$JS.API.STREAM.PURGE.TASKS",
				"{\"batch\":2,\"expires\":500000000}".getBytes(StandardCharsets.UTF_8));
		worker.jetStream().publish("$KV.exactly-once-idempotency.payload", new byte[0]);
		worker.publish("$JS.API.DIRECT.GET.KV_exactly-once-idempotency.$KV.exactly-once-idempotency.payload",
				"$JS.API.STREAM.DELETE.DEAD_LETTERS", new byte[0]);
		StreamConfiguration widened = StreamConfiguration
			.builder(worker.jetStreamManagement().getStreamInfo("TASKS").getConfiguration())
			.subjects("agents.*.tasks.>", "payments.>")
			.build();
		worker.jetStream().publish("$KV.exactly-once-idempotency.update", widened.toJson().getBytes(StandardCharsets.UTF_8));
		worker.publish("$JS.API.DIRECT.GET.KV_exactly-once-idempotency.$KV.exactly-once-idempotency.update",
				"$JS.API.STREAM.UPDATE.TASKS", new byte[0]);
		worker.flush(Duration.ofSeconds(5));

		JetStreamManagement streams = admin.jetStreamManagement();
		await("for 1.5 s after the server took the attacks, nothing they aimed at changes")
			.during(Duration.ofMillis(1500))
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> {
				assertThat(streams.getStreamNames()).as("streams left")
					.contains("KV_exactly-once-idempotency", "DEAD_LETTERS");
				assertThat(admin.keyValue("exactly-once-idempotency").keys()).contains("other-consumer=3At-1");
				assertThat(streams.getStreamInfo("TASKS").getStreamState().getMsgCount()).as("tasks left in TASKS")
					.isOne();
				assertThat(streams.getStreamInfo("TASKS").getConfiguration().getSubjects())
					.containsExactly("agents.*.tasks.>");
			});
	}

	@Test
	void theOwnersOwnRepliesDoNotReachTheWorkersAccount() throws Exception {
		NatsServerProcess nats = server();
		LeastPrivilegeIntegrationTests.provision(instances(nats));
		Connection witness = connect("nats://witness:witness-pw@127.0.0.1:" + nats.port(), "_INBOX");
		List<String> seen = new CopyOnWriteArrayList<>();
		witness.createDispatcher((message) -> seen.add(message.getSubject())).subscribe(">");
		witness.flush(Duration.ofSeconds(5));
		Connection admin = connect(adminUrl(nats), "_INBOX");
		Connection worker = connect(LeastPrivilegeIntegrationTests.workerUrl(nats), WORKER_INBOX_PREFIX);

		admin.jetStreamManagement().getStreamInfo("TASKS");
		admin.keyValue("exactly-once-idempotency").put("owner-record", "value");
		worker.jetStreamManagement().getStreamInfo("TASKS");
		worker.flush(Duration.ofSeconds(5));

		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(seen).as("the worker's own reply reaches its account")
				.anyMatch((subject) -> subject.startsWith(WORKER_INBOX_PREFIX + ".")));
		admin.flush(Duration.ofSeconds(5));
		witness.flush(Duration.ofSeconds(5));
		assertThat(seen).as("the owner's replies, which went out before the worker's").noneMatch((subject) -> subject.startsWith("_INBOX."));
	}

	/**
	 * The owner-account configuration built from the documented blocks, the worker's reply inboxes
	 * prefixed with {@link #WORKER_INBOX_PREFIX}.
	 * @return the started server
	 */
	static NatsServerProcess server() {
		String worker = LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS.replace("\"_INBOX.>\"",
				"\"" + WORKER_INBOX_PREFIX + ".>\"");
		List<String> services = quoted(section(worker, "publish:"));
		List<String> streams = new ArrayList<>(quoted(section(worker, "subscribe:")));
		StringBuilder exports = new StringBuilder();
		StringBuilder imports = new StringBuilder();
		for (String service : services) {
			exports.append("      { service: \"").append(service).append("\", response_type: stream }\n");
			imports.append("      { service: { account: OWNER, subject: \"").append(service).append("\" } }\n");
		}
		for (String stream : streams) {
			exports.append("      { stream: \"").append(stream).append("\" }\n");
			imports.append("      { stream: { account: OWNER, subject: \"").append(stream).append("\" } }\n");
		}
		return NatsServerProcess.withConfiguration("accounts {\n"
				+ "  OWNER: {\n    jetstream: enabled\n    users = [\n"
				+ "      { user: admin, password: admin-pw }\n"
				+ "      { user: provisioner, password: provisioner-pw, "
				+ LeastPrivilegeIntegrationTests.PROVISIONER_PERMISSIONS + " }\n    ]\n"
				+ "    exports = [\n" + exports + "    ]\n  }\n"
				+ "  WORKERS: {\n    users = [\n      { user: worker, password: worker-pw, " + worker + " }\n"
				+ "      { user: witness, password: witness-pw }\n    ]\n"
				+ "    imports = [\n" + imports + "    ]\n  }\n}\n").start();
	}

	private static String section(String permissions, String name) {
		int start = permissions.indexOf(name);
		return permissions.substring(start, permissions.indexOf(']', start));
	}

	private static List<String> quoted(String text) {
		List<String> values = new ArrayList<>();
		Matcher matcher = Pattern.compile("\"([^\"]+)\"").matcher(text);
		while (matcher.find()) {
			values.add(matcher.group(1));
		}
		return values;
	}

	private static String adminUrl(NatsServerProcess nats) {
		return LeastPrivilegeIntegrationTests.adminUrl(nats);
	}

	private Connection connect(String url, String inboxPrefix) throws Exception {
		Connection connection = Nats.connect(Options.builder().server(url).connectionTimeout(Duration.ofSeconds(5))
			.inboxPrefix(inboxPrefix).build());
		this.resources.add(connection);
		return connection;
	}

	private TestInstances instances(NatsServerProcess nats) {
		this.resources.add(nats);
		TestInstances instances = new TestInstances(nats);
		this.resources.add(instances);
		return instances;
	}

}

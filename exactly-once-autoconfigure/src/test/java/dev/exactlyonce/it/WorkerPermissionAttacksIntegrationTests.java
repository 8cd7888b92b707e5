package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValueManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TestInstances;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * What a worker holding docs/security.md's worker block, verbatim, can do with a raw client beyond
 * what the docs mean (DESIGN invariant 17): erase records of a bucket it does not name (roll-up
 * headers, KV purges, headers of newer servers), make the server publish into a subject it is denied
 * (a watcher's deliver subject, a pull request's reply subject), and, with the streams in its own
 * account, make the JetStream API serve a request it is denied (a reply subject on that API).
 */
class WorkerPermissionAttacksIntegrationTests {

	private static final List<String> BUCKETS = List.of("exactly-once-idempotency", "EXACTLYONCE_TALLIES",
			"EXACTLYONCE_PARKED_COMPLETIONS");

	@RegisterExtension
	final ClosedAfterEach resources = new ClosedAfterEach();

	@Test
	void aRollupOrAPurgeFromTheWorkerErasesNoRecordOfItsBuckets() throws Exception {
		NatsServerProcess nats = LeastPrivilegeIntegrationTests.server(LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS);
		LeastPrivilegeIntegrationTests.provision(instances(nats));
		Connection admin = connect(LeastPrivilegeIntegrationTests.adminUrl(nats));
		for (String bucket : BUCKETS) {
			admin.keyValue(bucket).put("other-consumer=3At-1", "completed");
			admin.keyValue(bucket).put("other-consumer=3At-2", "completed");
		}
		Connection worker = connect(LeastPrivilegeIntegrationTests.workerUrl(nats));
		for (String bucket : BUCKETS) {
			assertThatException().as("roll-up of %s", bucket)
				.isThrownBy(() -> worker.jetStream().publish(NatsMessage.builder()
					.subject("$KV." + bucket + ".anything")
					.headers(new Headers().add("Nats-Rollup", "all"))
					.data("x".getBytes(StandardCharsets.UTF_8))
					.build()))
				.withMessageContaining("10111");
			assertThatException().as("KV purge of another key in %s", bucket)
				.isThrownBy(() -> worker.keyValue(bucket).purge("other-consumer=3At-2"))
				.withMessageContaining("10111");
		}
		for (String bucket : BUCKETS) {
			assertThat(admin.keyValue(bucket).keys()).as(bucket).contains("other-consumer=3At-1", "other-consumer=3At-2");
		}
	}

	/**
	 * Headers newer servers give a meaning (2.11: per-message TTL; 2.12: counters, schedules, atomic
	 * batches) need a stream setting the buckets do not have: 2.15.1 refuses each write, 2.9.10 stores a
	 * plain record. Either way no record expires, is scheduled over or is counted away.
	 */
	@Test
	void headersOfNewerServersEraseNoRecord() throws Exception {
		NatsServerProcess nats = LeastPrivilegeIntegrationTests.server(LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS);
		LeastPrivilegeIntegrationTests.provision(instances(nats));
		Connection admin = connect(LeastPrivilegeIntegrationTests.adminUrl(nats));
		admin.keyValue("exactly-once-idempotency").put("other-consumer=3At-1", "completed");
		Connection worker = connect(LeastPrivilegeIntegrationTests.workerUrl(nats));
		List<Headers> attempts = List.of(new Headers().add("Nats-TTL", "1s"),
				new Headers().add("Nats-Schedule", "@every 1s")
					.add("Nats-Schedule-Target", "$KV.exactly-once-idempotency.other-consumer=3At-1"),
				new Headers().add("Nats-Incr", "1"),
				new Headers().add("Nats-Batch-Id", "b").add("Nats-Batch-Sequence", "1").add("Nats-Batch-Commit", "1"));
		for (Headers headers : attempts) {
			catchThrowable(() -> worker.jetStream().publish(NatsMessage.builder()
				.subject("$KV.exactly-once-idempotency.worker=3At-1")
				.headers(headers)
				.data("x".getBytes(StandardCharsets.UTF_8))
				.build()));
		}
		await("for 2.5 s (past the 1 s TTL and schedule the attempts asked for), the other consumer's record stays")
			.during(Duration.ofMillis(2500))
			.atMost(Duration.ofSeconds(6))
			.untilAsserted(() -> {
				assertThat(admin.keyValue("exactly-once-idempotency").get("other-consumer=3At-1")).isNotNull()
					.satisfies((entry) -> assertThat(entry.getValueAsString()).isEqualTo("completed"));
				assertThat(admin.keyValue("exactly-once-idempotency").keys()).contains("other-consumer=3At-1");
			});
		assertThat(admin.jetStreamManagement().getStreamInfo("KV_exactly-once-idempotency").getConfiguration())
			.satisfies((stream) -> assertThat(stream.getAllowMessageTtl()).isFalse());
	}

	@Test
	void aBucketAnEarlierVersionCreatedIsRefusedToAWorkerAndClosedByTheProvisionerKeepingItsRecords()
			throws Exception {
		NatsServerProcess nats = LeastPrivilegeIntegrationTests.server(LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS);
		TestInstances instances = instances(nats);
		LeastPrivilegeIntegrationTests.provision(instances);
		Connection admin = connect(LeastPrivilegeIntegrationTests.adminUrl(nats));
		KeyValueManagement buckets = admin.keyValueManagement();
		for (String bucket : BUCKETS) {
			buckets.delete(bucket);
			buckets.create(KeyValueConfiguration.builder().name(bucket).maxHistoryPerKey(1)
				.storageType(StorageType.File).build());
			admin.keyValue(bucket).put("kept", "record");
		}

		ExactlyOnceConfigurationException refused = LeastPrivilegeIntegrationTests.rootConfigurationFailure(catchThrowable(() -> instances.start("a",
				"exactlyonce.nats.username=worker", "exactlyonce.nats.password=worker-pw",
				"exactlyonce.provisioning.mode=validate")));
		assertThat(refused.getProblemSentence()).contains("NATS KV bucket '")
			.contains("allow_rollup_hdrs: true").contains("deny_purge: false");
		assertThat(refused.getAction()).contains("exactlyonce.provisioning.mode=create-or-update")
			.contains("\"$JS.API.STREAM.UPDATE.KV_");

		LeastPrivilegeIntegrationTests.provision(instances);
		JetStreamManagement streams = admin.jetStreamManagement();
		for (String bucket : BUCKETS) {
			assertThat(streams.getStreamInfo("KV_" + bucket).getConfiguration()).as(bucket)
				.satisfies((stream) -> assertThat(stream.getAllowRollup()).isFalse())
				.satisfies((stream) -> assertThat(stream.getDenyPurge()).isTrue())
				.satisfies((stream) -> assertThat(stream.getDenyDelete()).isTrue());
			assertThat(admin.keyValue(bucket).keys()).as(bucket).contains("kept");
		}
		instances.start("b", "exactlyonce.nats.username=worker", "exactlyonce.nats.password=worker-pw",
				"exactlyonce.provisioning.mode=validate");
		assertThat(LeastPrivilegeIntegrationTests.violations(nats)).isEmpty();
	}

	/**
	 * The page's accounts example, with a witness in the workers' account (not in the example) who
	 * subscribes to {@code payments.card} there: the server does deliver into it, inside {@code WORKERS},
	 * and nothing crosses into {@code PAYMENTS}.
	 */
	@Test
	void anotherAccountsSubjectIsOutOfTheWorkersReach() throws Exception {
		String configuration = SecurityDocumentation.accounts("$PROVISIONER_PASSWORD", "provisioner-pw",
				"$WORKER_PASSWORD", "worker-pw", "$PAYMENTS_PASSWORD", "payments-pw");
		NatsServerProcess nats = NatsServerProcess.withConfiguration(configuration.replaceFirst("users = \\[\n",
				"users = [\n      { user: witness, password: witness-pw }\n")).start();
		LeastPrivilegeIntegrationTests.provision(instances(nats));
		Connection provisioner = connect("nats://provisioner:provisioner-pw@127.0.0.1:" + nats.port());
		provisioner.jetStream().publish("agents.marketing.tasks.blog-post", "{\"taskId\":\"t-1\"}".getBytes());
		provisioner.keyValue("exactly-once-idempotency").put("worker=3At-0", "completed");
		Connection payments = connect("nats://payments:payments-pw@127.0.0.1:" + nats.port());
		Subscription card = payments.subscribe("payments.card");
		payments.flush(Duration.ofSeconds(5));
		Connection witness = connect("nats://witness:witness-pw@127.0.0.1:" + nats.port());
		Set<String> delivered = ConcurrentHashMap.newKeySet();
		witness.createDispatcher((message) -> delivered.add(message.getSubject())).subscribe("payments.card");
		witness.flush(Duration.ofSeconds(5));
		Connection worker = connect(LeastPrivilegeIntegrationTests.workerUrl(nats));

		Message created = worker.request("$JS.API.CONSUMER.CREATE.KV_exactly-once-idempotency.redirect."
				+ "$KV.exactly-once-idempotency.>", ("{\"stream_name\":\"KV_exactly-once-idempotency\",\"config\":{"
						+ "\"name\":\"redirect\",\"deliver_subject\":\"payments.card\",\"ack_policy\":\"none\","
						+ "\"filter_subject\":\"$KV.exactly-once-idempotency.>\"}}").getBytes(StandardCharsets.UTF_8),
				Duration.ofSeconds(5));
		assertThat(new String(created.getData(), StandardCharsets.UTF_8)).as("the server's answer")
			.doesNotContain("\"error\"");
		worker.publish("$JS.API.CONSUMER.MSG.NEXT.TASKS.worker", "payments.card",
				"{\"batch\":1,\"expires\":5000000000}".getBytes(StandardCharsets.UTF_8));
		worker.flush(Duration.ofSeconds(5));

		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(delivered)
			.as("what the server published to payments.card inside WORKERS")
			.contains("agents.marketing.tasks.blog-post", "$KV.exactly-once-idempotency.worker=3At-0"));
		payments.flush(Duration.ofSeconds(5));
		assertThat(card.getPendingMessageCount()).as("messages that reached payments.card in account PAYMENTS")
			.isZero();
	}

	/**
	 * A pull request's reply subject is the worker's to choose, and the server publishes its status
	 * answers there ({@code 404 No Messages}, {@code 408 Request Timeout}) with an empty body from
	 * inside the account: sent to a JetStream API subject, that empty message is a request the API
	 * serves, whatever the worker's publish permissions. {@code STREAM.DELETE} and
	 * {@code CONSUMER.DELETE} take an empty body, {@code STREAM.PURGE} too, and no stream setting refuses
	 * a stream delete. Measured, not wanted: with the streams in the worker's own account the bucket is
	 * deleted and the tasks purged; {@link OwnerAccountIntegrationTests} shows the confinement.
	 */
	@Test
	void aPullRequestsReplySubjectDeletesABucketAndPurgesTheTasksOfItsOwnAccount() throws Exception {
		NatsServerProcess nats = LeastPrivilegeIntegrationTests.server(LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS);
		LeastPrivilegeIntegrationTests.provision(instances(nats));
		Connection admin = connect(LeastPrivilegeIntegrationTests.adminUrl(nats));
		admin.keyValue("exactly-once-idempotency").put("other-consumer=3At-1", "completed");
		Connection worker = connect(LeastPrivilegeIntegrationTests.workerUrl(nats));

		worker.publish("$JS.API.CONSUMER.MSG.NEXT.TASKS.worker", "$JS.API.STREAM.DELETE.KV_exactly-once-idempotency",
				"{\"batch\":1,\"no_wait\":true}".getBytes(StandardCharsets.UTF_8));
		worker.flush(Duration.ofSeconds(5));
		admin.jetStream().publish("agents.marketing.tasks.blog-post", "{\"taskId\":\"t-1\"}".getBytes());
		worker.publish("$JS.API.CONSUMER.MSG.NEXT.TASKS.worker", "$JS.API.STREAM.PURGE.TASKS",
				"{\"batch\":2,\"expires\":500000000}".getBytes(StandardCharsets.UTF_8));
		worker.flush(Duration.ofSeconds(5));

		JetStreamManagement streams = admin.jetStreamManagement();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(streams.getStreamNames()).as("streams left").doesNotContain("KV_exactly-once-idempotency");
			assertThat(streams.getStreamInfo("TASKS").getStreamState().getMsgCount()).as("tasks left in TASKS").isZero();
		});
	}

	/**
	 * A direct get answers with the stored record's body, to the reply subject the requester chose:
	 * a record the worker wrote holding a stream configuration, read with reply
	 * {@code $JS.API.STREAM.UPDATE.TASKS}, is an update of the task stream that
	 * {@code LeastPrivilegeIntegrationTests.theWorkerCannotWidenItsStreamToReadOtherSubjectsNorShortenItsRetention}
	 * shows refused when the worker sends it itself. Measured, not wanted, as above.
	 */
	@Test
	void aDirectGetsReplySubjectWidensTheTaskStreamOfItsOwnAccount() throws Exception {
		NatsServerProcess nats = LeastPrivilegeIntegrationTests.server(LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS);
		LeastPrivilegeIntegrationTests.provision(instances(nats));
		Connection worker = connect(LeastPrivilegeIntegrationTests.workerUrl(nats));
		StreamConfiguration widened = StreamConfiguration
			.builder(worker.jetStreamManagement().getStreamInfo("TASKS").getConfiguration())
			.subjects("agents.*.tasks.>", "payments.>")
			.build();

		worker.jetStream().publish("$KV.exactly-once-idempotency.payload",
				widened.toJson().getBytes(StandardCharsets.UTF_8));
		worker.publish("$JS.API.DIRECT.GET.KV_exactly-once-idempotency.$KV.exactly-once-idempotency.payload",
				"$JS.API.STREAM.UPDATE.TASKS", new byte[0]);
		worker.flush(Duration.ofSeconds(5));

		Connection admin = connect(LeastPrivilegeIntegrationTests.adminUrl(nats));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(admin.jetStreamManagement()
			.getStreamInfo("TASKS").getConfiguration().getSubjects()).containsExactly("agents.*.tasks.>", "payments.>"));
	}

	private Connection connect(String url) throws Exception {
		Connection connection = Nats.connect(Options.builder().server(url).connectionTimeout(Duration.ofSeconds(5))
			.build());
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
